module chaind/scripts/grpc-descriptors

go 1.22

require (
	github.com/bufbuild/protocompile v0.14.1
	google.golang.org/protobuf v1.34.2
)

require golang.org/x/sync v0.8.0 // indirect
