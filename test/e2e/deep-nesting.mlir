// Nesting deeper than 1000 is refused before parsing, with the position of
// the first bracket too deep: MLIR's parser recurses once per level, and an
// attribute nested 10,000 deep overflowed the stack of rlxc and rlx-opt
// with no message.
// RUN: python3 -c "print('func.func @f() attributes {deep = ' + '[' * 10000 + ']' * 10000 + '} {\n  return\n}')" > %t.array.mlir
// RUN: not rlxc %t.array.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not test -e %t.so
// RUN: not rlx-opt %t.array.mlir 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not rlx-opt < %t.array.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// The attribute dictionary's { is level 1, the 1000th [ level 1001.
// ARRAY: nesting.mlir.tmp.array.mlir:1:1034: error: nesting deeper than 1000
// STDIN: <stdin>:1:1034: error: nesting deeper than 1000

// Types and dictionaries nest too; the position is line and column.
// RUN: python3 -c "print('func.func @f(\n    %%x: ' + 'tuple<' * 5000 + 'i32' + '>' * 5000 + ') {\n  return\n}')" > %t.tuple.mlir
// RUN: not rlxc %t.tuple.mlir -o %t.so 2>&1 | FileCheck %s --check-prefix=TUPLE
// TUPLE: tuple.mlir:2:6008: error: nesting deeper than 1000
// RUN: python3 -c "print('func.func @f() attributes {deep = ' + '{a = ' * 3000 + '1' + '}' * 3000 + '} {\n  return\n}')" > %t.dict.mlir
// RUN: not rlx-opt %t.dict.mlir 2>&1 | FileCheck %s --check-prefix=DICT
// DICT: dict.mlir:1:5030: error: nesting deeper than 1000

// 1000 levels are fine, and brackets in strings and comments, arrows and
// comparisons do not count.
// RUN: python3 -c "print('func.func @f() attributes {deep = ' + '[' * 999 + ']' * 999 + '} {\n  return\n}')" > %t.max.mlir
// RUN: rlx-opt %t.max.mlir | FileCheck %s --check-prefix=MAX
// MAX: func.func @f() attributes {deep = {{\[+}}
// RUN: python3 -c "print('// ' + '(' * 5000 + '\nfunc.func @f() attributes {s = \"' + '[' * 5000 + '\\\\\"\", m = [' + 'affine_map<(d0) -> (d0)>, ' * 2000 + 'affine_set<(d0) : (d0 - 1 >= 0)>]} {\n  return\n}')" > %t.lexical.mlir
// RUN: rlx-opt %t.lexical.mlir | FileCheck %s --check-prefix=LEXICAL
// LEXICAL: func.func @f()
