#!/bin/sh
# Builds asan_with_fuzzer.so: clang's AddressSanitizer runtime and libFuzzer in one shared library, to preload
# for a coverage-guided atheris run on a QATBE_SANITIZE=fuzzer build (fuzz/README.md).
#
# Why one library: the ASan runtime defines weak coverage callbacks (__sanitizer_cov_*); preloaded alone they
# shadow libFuzzer's, and atheris then runs blind. Linked together, libFuzzer's strong definitions win.
# asan_preinit.o is left out because a shared library may not carry a .preinit_array.
#
# Usage: fuzz/build_runtime.sh OUT.so   (needs clang and Debian's libclang-rt-<version>-dev)
set -eu
out=$(realpath -m "${1:?usage: fuzz/build_runtime.sh OUT.so}")
cc=${CC:-clang}
rt=$(dirname "$("$cc" -print-file-name=libclang_rt.asan-x86_64.a)")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$rt/libclang_rt.asan-x86_64.a" "$tmp/asan.a"
ar d "$tmp/asan.a" asan_preinit.cpp.o
"$cc" -shared -o "$out" -Wl,--whole-archive "$rt/libclang_rt.fuzzer_no_main-x86_64.a" "$tmp/asan.a" \
  "$rt/libclang_rt.asan_cxx-x86_64.a" -Wl,--no-whole-archive -lstdc++ -lpthread -ldl -lrt -lm
echo "$out"
