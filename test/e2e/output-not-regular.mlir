// An output path that is not a regular file is written through and keeps
// what it is: rlxc and rlx-run used to write a temporary file and rename it
// over the target, which replaced a symbolic link by a file (and, as root,
// deleted a device node such as /dev/null).
// RUN: rm -rf %t && mkdir -p %t
// RUN: touch %t/model.so %t/y.npy
// RUN: ln -s %t/model.so %t/link.so
// RUN: ln -s %t/y.npy %t/link.npy
// RUN: rlxc %s -o %t/link.so
// RUN: test -L %t/link.so
// RUN: rlx-run %t/model.so --info | FileCheck %s --check-prefix=INFO
// INFO: entry point 'twice'
// RUN: rlx-testdata npy %t/x.npy f32 3
// RUN: rlx-run %t/link.so --input %t/x.npy --output %t/link.npy
// RUN: test -L %t/link.npy
// RUN: rlx-run %t/model.so --input %t/y.npy | FileCheck %s --check-prefix=TWICE
// TWICE: out0: f32[3] = [-12, -8, -4]
// The output of twice(x) fed back through the link: 4x. A regular file is
// still replaced by a rename.
// RUN: rlxc %s -o %t/model.so
// RUN: test ! -L %t/model.so
func.func @twice(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = rlx.add %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %y : tensor<3xf32>
}
// rlx-opt refuses an output that is its input (also through a link), and
// leaves the input as it was.
// RUN: cp %s %t/in.mlir && ln -s %t/in.mlir %t/in-link.mlir
// RUN: not rlx-opt %t/in.mlir -o %t/in-link.mlir 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: rlx-opt: error: the output '{{.*}}in-link.mlir' is the input: refusing to overwrite it
// RUN: cmp %s %t/in.mlir
