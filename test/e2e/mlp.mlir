// The README's main job: compile the example MLP and run it with its weights
// bound by name. Expected values computed independently with numpy in f64.
// RUN: rlxc %rlx_src_root/examples/mlp/model.mlir -o %t.so
// RUN: rlx-run %t.so --fn forward --weights %rlx_src_root/examples/mlp/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/mlp/x.npy --outputs %t.out.safetensors | FileCheck %s
// CHECK: logits: f32[2,3] = [-0.21458{{[0-9]*}}, 0.42404{{[0-9]*}}, -0.64971{{[0-9]*}}, 3.0807{{[0-9]*}}, 0.69211{{[0-9]*}}, 1.6004{{[0-9]*}}]
// CHECK: probs: f32[2,3] = [0.2824{{[0-9]*}}, 0.53483{{[0-9]*}}, 0.18276{{[0-9]*}}, 0.75796{{[0-9]*}}, 0.069548{{[0-9]*}}, 0.17249{{[0-9]*}}]

// The outputs file holds both outputs by name.
// RUN: rlx-run %t.so --weights %rlx_src_root/examples/mlp/weights.safetensors \
// RUN:   --input %rlx_src_root/examples/mlp/x.npy --benchmark 5 | FileCheck %s --check-prefix=BENCH
// BENCH: median
// BENCH-SAME: min
// BENCH-SAME: max

// Weights of another model: the unknown names are reported, nothing runs.
// RUN: not rlx-run %t.so --weights %rlx_src_root/examples/tosa_mlp/weights.safetensors \
// RUN:   --input x=%rlx_src_root/examples/mlp/x.npy 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: rlx-run: error: {{.*}}unknown weight 'fc1_w'

// Every manifest field is visible.
// RUN: rlx-run %t.so --info | FileCheck %s --check-prefix=INFO
// INFO: target: cpu
// INFO: entry point 'forward'
// INFO: x: f32[?,4]
// INFO: encoder.layers.0.fc1.weight: f32[4,8]
// INFO: logits: f32[?,3]
