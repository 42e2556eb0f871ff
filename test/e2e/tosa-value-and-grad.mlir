// A forward TOSA model exported elsewhere becomes trainable: rlxc adds
// loss_value_and_grad, differentiating w.r.t. every ml_program weight, with
// outputs named value and grad.<weight>. Expected values: central finite
// differences in f64 (numpy), not rlx, to the digits an f32 computation with
// vectorized (few-ulp) tanh keeps.
// RUN: rlxc %rlx_src_root/examples/tosa_loss/model.mlir --value-and-grad=loss -o %t.so
// RUN: rlx-run %t.so --fn loss_value_and_grad --weights %rlx_src_root/examples/tosa_loss/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/tosa_loss/x.npy --input y=%rlx_src_root/examples/tosa_loss/y.npy \
// RUN:   --outputs %t.grads.safetensors | FileCheck %s
// CHECK: value: f32[1,1,1] = [0.68678{{[0-9]*}}]
// CHECK: grad.w1: f32[1,4,6] = [0.0041967{{[0-9]*}}, -0.28491{{[0-9]*}}, -0.1922{{[0-9]*}}, 0.20901{{[0-9]*}},
// CHECK: grad.b1: f32[1,1,6] = [0.069760{{[0-9]*}}, 0.076736{{[0-9]*}}, -0.19501{{[0-9]*}}, 0.14393{{[0-9]*}}, 0.029447{{[0-9]*}}, -9.002{{[0-9]*}}e-05]
// CHECK: grad.w2: f32[1,6,2] = [-0.22143{{[0-9]*}}, -0.51305{{[0-9]*}}, -0.0030119{{[0-9]*}}, -0.41646{{[0-9]*}},

// The gradients file is keyed by the same names.
// RUN: rlx-run %t.so --info | FileCheck %s --check-prefix=INFO
// INFO: entry point 'loss_value_and_grad'
// INFO: outputs:
// INFO-NEXT: value: f32[1,1,1]
// INFO-NEXT: grad.w1: f32[1,4,6]
// INFO-NEXT: grad.b1: f32[1,1,6]
// INFO-NEXT: grad.w2: f32[1,6,2]

// --grad alone gives only the gradients.
// RUN: rlxc %rlx_src_root/examples/tosa_loss/model.mlir --grad=loss -o %t.grad.so
// RUN: rlx-run %t.grad.so --info | FileCheck %s --check-prefix=GRAD
// GRAD: entry point 'loss_grad'
// GRAD: outputs:
// GRAD-NEXT: grad.w1
