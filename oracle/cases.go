package main

func genCases(args []string) error { return nil }
