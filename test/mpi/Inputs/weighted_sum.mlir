// The entry point of rlx_run.sh: replica r contributes x * (r + 1), so the
// sum over N replicas is x * N (N + 1) / 2 on every replica.
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %i = rlx.axis_index {axis = "replicas"} : tensor<i32>
  %f = rlx.cast %i : tensor<i32> -> tensor<f32>
  %one = rlx.constant dense<1.0> : tensor<f32>
  %w = rlx.add %f, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y = rlx.mul %x, %w : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  %s = rlx.all_reduce %y {axis = "replicas", kind = "sum"} : tensor<3xf32>
  return %s : tensor<3xf32>
}
