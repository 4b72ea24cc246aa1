import 'github.com/grafana/grafonnet/gen/grafonnet-latest/main.libsonnet'
