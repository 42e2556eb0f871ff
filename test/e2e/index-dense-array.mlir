// A dense array of `index` elements crashed MLIR's parser (it reads the
// width of `index` as a float's); rlxc and rlx-opt refuse it before parsing,
// with its position. fuzz.mlir found it.
// RUN: python3 -c "print('func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%0 = rlx.avg_pool2d %%x {padding = array< index, 3>} : (tensor<4xf32>) -> tensor<4xf32>\n  return %%0 : tensor<4xf32>\n}')" > %t.mlir
// RUN: not rlxc %t.mlir -o %t.so 2>&1 | FileCheck %s
// RUN: not test -e %t.so
// RUN: not rlx-opt %t.mlir 2>&1 | FileCheck %s
// RUN: printf '"test.x"() {a = array<index: 1, 2>} : () -> ()\n' > %t.generic.mlir
// RUN: not rlx-opt --allow-unregistered-dialect %t.generic.mlir 2>&1 | FileCheck %s --check-prefix=GENERIC
// CHECK: .mlir:2:37: error: a dense array of 'index' elements: array<T: ...> takes integer or float elements (use i64)
// GENERIC: generic.mlir:1:17: error: a dense array of 'index' elements

// The lexer skips NUL characters and comments between tokens as it does
// spaces (fuzz.mlir found `array<` then NULs then `index`).
// RUN: printf '"test.x"() {a = array<\0\0index: 1>} : () -> ()\n' > %t.nul.mlir
// RUN: not rlx-opt --allow-unregistered-dialect %t.nul.mlir 2>&1 | FileCheck %s --check-prefix=NUL
// RUN: printf '"test.x"() {a = array // c\n <// d\n index: 1>} : () -> ()\n' > %t.comment.mlir
// RUN: not rlx-opt --allow-unregistered-dialect %t.comment.mlir 2>&1 | FileCheck %s --check-prefix=COMMENT
// NUL: nul.mlir:1:17: error: a dense array of 'index' elements
// COMMENT: comment.mlir:1:17: error: a dense array of 'index' elements

// Other element types, the word in strings, comments and dialect type names
// are left to the parser.
// RUN: printf '// array<index\n"test.x"() {a = array<i64: 1, 2>, s = "array<index: 1>", t = !test.array<index>} : () -> ()\n' > %t.ok.mlir
// RUN: rlx-opt --allow-unregistered-dialect %t.ok.mlir | FileCheck %s --check-prefix=OK
// OK: a = array<i64: 1, 2>
