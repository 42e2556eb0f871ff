// A chain of 20,001 elementwise ops compiles in seconds and computes what a
// plain loop does. Fusing a chain into one body clones it once per fusion,
// O(n^2): the same chain took minutes and overflowed the stack before the
// fused body size was bounded (rlx-fuse-elementwise).
// Each step of 3 is v + x, then - x, then + x: y = x + 6667 x = 6668 x.
// RUN: python3 -c "print('func.func @chain(%%x: tensor<?xf32> {rlx.name = \"x\"}) -> (tensor<?xf32> {rlx.name = \"y\"}) {'); print('\n'.join('  %%v' + str(i) + ' = rlx.' + ['add', 'sub', 'add'][i %% 3] + ' ' + ('%%x' if i == 0 else '%%v' + str(i - 1)) + ', %%x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>' for i in range(20001))); print('  return %%v20000 : tensor<?xf32>\n}')" > %t.mlir
// RUN: rlxc %t.mlir -o %t.so
// RUN: rlx-testdata npy %t.x.npy f32 4
// RUN: rlx-run %t.so --input x=%t.x.npy | FileCheck %s
// x = [-3, -2, -1, 0]
// CHECK: y: f32[4] = [-20004, -13336, -6668, 0]
