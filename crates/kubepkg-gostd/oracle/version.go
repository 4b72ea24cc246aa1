package main

import "runtime"

func runtimeVersion() string { return runtime.Version() }
