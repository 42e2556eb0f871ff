// A TOSA model with external ml_program weights compiles and runs with its
// weights bound by their global names. Expected values from numpy in f64.
// RUN: rlxc %rlx_src_root/examples/tosa_mlp/model.mlir -o %t.so
// RUN: rlx-run %t.so --weights %rlx_src_root/examples/tosa_mlp/weights.safetensors \
// RUN:   --input %rlx_src_root/examples/tosa_mlp/x.npy | FileCheck %s
// CHECK: out0: f32[1,3,2] = [-0.0597996, -0.43524{{[0-9]*}}, 0.54783{{[0-9]*}}, -0.40523{{[0-9]*}}, -0.94354{{[0-9]*}}, 0.086442{{[0-9]*}}]

// The import is one phase: the model is plain rlx after it.
// RUN: rlxc %rlx_src_root/examples/tosa_mlp/model.mlir --compile-to=import | FileCheck %s --check-prefix=IMPORT
// IMPORT: rlx.param "fc1_w" : tensor<1x4x6xf32>
// IMPORT: rlx.matmul
// IMPORT: rlx.tanh
// IMPORT-NOT: tosa.
