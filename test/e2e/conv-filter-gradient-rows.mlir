// Filter gradients of padded 3x3 convs (rlx.vjp with respect to the
// filter) against plain loops (filter_gradients.py), exactly: with a static
// batch the CPU takes them over output rows, every tap per row, in
// parallel chunks of partial sums (rlx-cpu-filter-gradient-rows; stride 1,
// stride 2, and a 1x1 conv's single product); with a dynamic batch,
// per-tap products.
// RUN: mkdir -p %t.s %t.d
// RUN: python3 %inputs/filter_gradients.py model static > %t.static.mlir
// RUN: python3 %inputs/filter_gradients.py inputs %t.s 2 1
// RUN: rlxc %t.static.mlir --compile-to fuse -o - | FileCheck %s --check-prefix=ROWS
// RUN: rlxc %t.static.mlir -o %t.static.so
// RUN: rlx-run %t.static.so --input x1=%t.s/x1.npy --input w1=%t.s/w1.npy --input g1=%t.s/g1.npy --input x2=%t.s/x2.npy --input w2=%t.s/w2.npy --input g2=%t.s/g2.npy --input w3=%t.s/w3.npy --input g3=%t.s/g3.npy --outputs %t.s/out.safetensors
// RUN: python3 %inputs/filter_gradients.py check %t.s %t.s/out.safetensors | FileCheck %s

// RUN: python3 %inputs/filter_gradients.py model dyn > %t.dyn.mlir
// RUN: python3 %inputs/filter_gradients.py inputs %t.d 3 2
// RUN: rlxc %t.dyn.mlir -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --input x1=%t.d/x1.npy --input w1=%t.d/w1.npy --input g1=%t.d/g1.npy --input x2=%t.d/x2.npy --input w2=%t.d/w2.npy --input g2=%t.d/g2.npy --input w3=%t.d/w3.npy --input g3=%t.d/g3.npy --outputs %t.d/out.safetensors
// RUN: python3 %inputs/filter_gradients.py check %t.d %t.d/out.safetensors | FileCheck %s

// Three convs, each one loop of row chunks and one sum of the chunks'
// partials; no tap's input is transposed for a product any more.
// ROWS-NOT: linalg.transpose
// ROWS-COUNT-3: } {rlx.parallel}
// ROWS-NOT: linalg.transpose
// CHECK: filter gradients: all 3 outputs exact
