// Compiles .proto files into one FileDescriptorSet: the named files and everything they import,
// dependencies first (what `protoc --include_imports --descriptor_set_out` writes), without source
// info. Run by scripts/gen-grpc-descriptors.ts, which passes the import paths and the root files.
//
// Usage: go run . -o <out.binpb> -I <dir> [-I <dir>...] <file.proto>...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ":") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	var imports paths
	out := flag.String("o", "", "output FileDescriptorSet")
	flag.Var(&imports, "I", "import path (repeatable; earlier wins)")
	flag.Parse()
	if *out == "" || len(imports) == 0 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run . -o out.binpb -I dir [-I dir...] file.proto...")
		os.Exit(2)
	}
	compiler := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: imports}),
	}
	files, err := compiler.Compile(context.Background(), flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			add(imps.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	for _, f := range files {
		add(f)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(set)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d files, %d bytes\n", *out, len(set.File), len(b))
}
