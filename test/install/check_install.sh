#!/usr/bin/env bash
# ctest install.consumer: installs the build into a fresh prefix and uses it
# as a user would, with nothing from the build tree:
#   - the layout: tools, librlxrt's SONAME, headers, CMake package, .pc file;
#     no installed file names the build tree, RPATHs are $ORIGIN/../lib (plus
#     system folders);
#   - the installed rlxc compiles examples/mlp and the installed rlx-run runs it;
#   - examples/consumer (its own CMake project, find_package(rlx)) builds
#     against the prefix: deploy (rlx::runtime only) binds the weights by
#     name and checks forward's outputs against its own computation,
#     list_entry_points is the C API, frontend_jit (rlx::frontend, unless
#     RLX_CONSUMER_FRONTEND=OFF) jits a gradient in process;
#   - pkg-config --cflags --libs rlx-runtime builds a C program that runs;
#   - the prefix still works after it is moved;
#   - cpack -G DEB makes a .deb holding the same files (where dpkg-deb is).
#
# check_install.sh SOURCE_DIR BUILD_DIR WORK_DIR [C_COMPILER CXX_COMPILER]
set -euo pipefail
src=$(realpath "$1")
build=$(realpath "$2")
work=$3
cc=${4:-cc}
cxx=${5:-c++}

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
prefix=$work/prefix
export XDG_CACHE_HOME=$work/cache

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log" \
  || { cat "$work/install.log"; fail "cmake --install"; }

step "layout"
for f in bin/rlxc bin/rlx-run bin/rlx-opt bin/rlx-import-onnx \
         include/rlx/runtime.h include/rlx/runtime.hpp include/rlx/abi.h \
         include/rlx/dtype.hpp include/rlx/check_grads.hpp \
         include/rlx/frontend.h include/rlx/frontend/Jit.h \
         lib/librlxfrontend.a lib/librlxcheckgrads.a \
         lib/cmake/rlx/rlxConfig.cmake lib/cmake/rlx/rlxConfigVersion.cmake \
         lib/cmake/rlx/rlxRuntimeTargets.cmake \
         lib/cmake/rlx/rlxFrontendTargets.cmake \
         lib/pkgconfig/rlx-runtime.pc; do
  [[ -e $prefix/$f ]] || fail "missing $f"
done
soname=$(readelf -d "$prefix/lib/librlxrt.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname =~ ^librlxrt\.so\.[0-9]+(\.[0-9]+)?$ ]] || fail "SONAME '$soname'"
[[ -e $prefix/lib/$soname && -L $prefix/lib/librlxrt.so ]] \
  || fail "librlxrt.so links to $soname"
echo "librlxrt SONAME $soname"

# Nothing installed may point into the build tree (RPATHs, baked paths).
# (The prefix itself may lie under the build tree, as it does in ctest.)
build_re=$(printf '%s/' "$build" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
grep -raohE "${build_re}[[:graph:]]*" "$prefix" \
  | awk -v work="$work/" 'index($0, work) != 1' | sort -u > "$work/build-paths.txt" || true
if [[ -s $work/build-paths.txt ]]; then
  head "$work/build-paths.txt"; fail "installed files name the build tree $build"
fi
for tool in rlxc rlx-run rlx-opt; do
  runpath=$(readelf -d "$prefix/bin/$tool" | sed -n 's/.*R\(UN\)\?PATH).*\[\(.*\)\]/\2/p')
  [[ $runpath == *'$ORIGIN/../lib'* ]] || fail "$tool RUNPATH '$runpath'"
done

step "installed rlxc + rlx-run on examples/mlp"
"$prefix/bin/rlxc" --version
"$prefix/bin/rlxc" "$src/examples/mlp/model.mlir" -o "$work/mlp.so"
"$prefix/bin/rlx-run" "$work/mlp.so" --fn forward \
  --weights "$src/examples/mlp/weights.safetensors" \
  --input "x=$src/examples/mlp/x.npy" > "$work/rlx-run.txt"
grep -q probs "$work/rlx-run.txt" || { cat "$work/rlx-run.txt"; fail rlx-run; }

step "examples/consumer against the prefix"
cmake -S "$src/examples/consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DRLX_CONSUMER_FRONTEND="${RLX_CONSUMER_FRONTEND:-ON}" > "$work/configure.log" \
  || { cat "$work/configure.log"; fail "configuring examples/consumer"; }
grep 'rlx .* from' "$work/configure.log"
grep -q "from $prefix/" "$work/configure.log" || fail "rlx not found in $prefix"
cmake --build "$work/consumer" -j 1 > "$work/build.log" \
  || { cat "$work/build.log"; fail "building examples/consumer"; }
"$work/consumer/deploy" "$work/mlp.so" "$src/examples/mlp/weights.safetensors"
"$work/consumer/list_entry_points" "$work/mlp.so"
if [[ ${RLX_CONSUMER_FRONTEND:-ON} == ON ]]; then
  [[ -x $work/consumer/frontend_jit ]] || fail "frontend_jit not built (MLIR 22 not found?)"
  "$work/consumer/frontend_jit"
fi

step "pkg-config rlx-runtime"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs rlx-runtime)
echo "pkg-config --cflags --libs rlx-runtime: $flags  (version $(pkg-config --modversion rlx-runtime))"
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Werror "$src/examples/consumer/list_entry_points.c" \
  -o "$work/list_entry_points_pc" $flags -Wl,-rpath,"$prefix/lib"
"$work/list_entry_points_pc" "$work/mlp.so" > /dev/null

step "the prefix moved elsewhere"
mv "$prefix" "$work/moved"
"$work/moved/bin/rlxc" "$src/examples/mlp/model.mlir" -o "$work/mlp2.so"
"$work/moved/bin/rlx-run" "$work/mlp2.so" --fn forward \
  --weights "$src/examples/mlp/weights.safetensors" \
  --input "x=$src/examples/mlp/x.npy" > /dev/null
moved_libs=$(PKG_CONFIG_PATH=$work/moved/lib/pkgconfig pkg-config --libs rlx-runtime)
[[ $moved_libs == *"-L$work/moved/"* ]] || fail "rlx-runtime.pc is not relocatable: $moved_libs"
if command -v dpkg-deb > /dev/null; then
  step "cpack -G DEB"
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" > "$work/cpack.log" \
    || { cat "$work/cpack.log"; fail cpack; }
  deb=$(ls "$work"/deb/rlx_*.deb)
  dpkg-deb -c "$deb" > "$work/deb-contents.txt"
  grep -q "usr/lib/$soname" "$work/deb-contents.txt" || fail "$deb lacks librlxrt"
  grep -q "usr/lib/cmake/rlx/rlxConfig.cmake" "$work/deb-contents.txt" \
    || fail "$deb lacks rlxConfig.cmake"
  echo "$(basename "$deb"): $(dpkg-deb -f "$deb" Depends)"
fi
echo "install.consumer: OK"
