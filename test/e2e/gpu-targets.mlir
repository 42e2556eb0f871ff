// GPU targets end to end. Vulkan runs for real on Mesa's lavapipe: the
// gradients of a TOSA model computed on the device match the same f64
// central finite differences (numpy) as the CPU test tosa-value-and-grad.
// RUN: rlxc %rlx_src_root/examples/tosa_loss/model.mlir --value-and-grad=loss --target=vulkan -o %t.vk.so
// RUN: rlx-run %t.vk.so --fn loss_value_and_grad --weights %rlx_src_root/examples/tosa_loss/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/tosa_loss/x.npy --input y=%rlx_src_root/examples/tosa_loss/y.npy | FileCheck %s
// CHECK: value: f32[1,1,1] = [0.68678{{[0-9]*}}]
// CHECK: grad.w1: f32[1,4,6] = [0.0041967{{[0-9]*}}, -0.28491{{[0-9]*}}, -0.1922{{[0-9]*}}, 0.20901{{[0-9]*}},
// CHECK: grad.b1: f32[1,1,6] = [0.069760{{[0-9]*}}, 0.076736{{[0-9]*}}, -0.19501{{[0-9]*}}, 0.14393{{[0-9]*}}, 0.029447{{[0-9]*}}, -9.002{{[0-9]*}}e-05]

// RUN: rlx-run %t.vk.so --info | FileCheck %s --check-prefix=INFO
// INFO: target: vulkan
// INFO: device: vulkan (

// Another device than the artifact's is refused, naming both.
// RUN: not rlx-run %t.vk.so --device cpu --fn loss_value_and_grad 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: was compiled for vulkan, not cpu

// CUDA and ROCm artifacts build here and load anywhere; without the driver
// a call is a clear error, not a failure to load or a crash.
// RUN: rlxc %rlx_src_root/examples/mlp/model.mlir --target=cuda -o %t.cuda.so
// RUN: rlx-run %t.cuda.so --info | FileCheck %s --check-prefix=CUDA-INFO
// CUDA-INFO: target: cuda
// RUN: not rlx-run %t.cuda.so --fn forward --weights %rlx_src_root/examples/mlp/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/mlp/x.npy 2>&1 | FileCheck %s --check-prefix=NOCUDA
// NOCUDA: rlx-run: error: no CUDA driver (libcuda.so.1 not found
// RUN: rlxc %rlx_src_root/examples/mlp/model.mlir --target=rocm -o %t.rocm.so
// RUN: not rlx-run %t.rocm.so --fn forward --weights %rlx_src_root/examples/mlp/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/mlp/x.npy 2>&1 | FileCheck %s --check-prefix=NOHIP
// NOHIP: rlx-run: error: no HIP

// Derivatives on the device: jvp and vjp of the Vulkan artifact against
// central differences of its own forward, at f32 tolerances.
// RUN: rlxc %rlx_src_root/examples/tosa_loss/model.mlir --check-grads=loss --target=vulkan -o %t.cg.so
// RUN: rlx-run %t.cg.so --check-grads --fn loss --weights %rlx_src_root/examples/tosa_loss/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/tosa_loss/x.npy --input y=%rlx_src_root/examples/tosa_loss/y.npy \
// RUN:   --directions 3 | FileCheck %s --check-prefix=CG
// CG: forward (jvp vs central differences{{.*}}: PASS
// CG: reverse ({{.*}}: PASS
// CG: {{^PASS}}
