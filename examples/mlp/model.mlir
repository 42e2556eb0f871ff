// A two-layer MLP classifier: logits and class probabilities for a batch of
// any size. Weights are bound by name at run time (weights.safetensors).
func.func @forward(%x: tensor<?x4xf32> {rlx.name = "x"})
    -> (tensor<?x3xf32> {rlx.name = "logits"}, tensor<?x3xf32> {rlx.name = "probs"}) {
  %w1 = rlx.param "encoder.layers.0.fc1.weight" : tensor<4x8xf32>
  %b1 = rlx.param "encoder.layers.0.fc1.bias" : tensor<8xf32>
  %w2 = rlx.param "head.weight" : tensor<8x3xf32>
  %b2 = rlx.param "head.bias" : tensor<3xf32>
  %h0 = rlx.matmul %x, %w1 : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  %h1 = rlx.add %h0, %b1 : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %h2 = rlx.gelu %h1 : tensor<?x8xf32>
  %l0 = rlx.matmul %h2, %w2 : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
  %l1 = rlx.add %l0, %b2 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %p = rlx.softmax %l1 {axis = 1 : i64} : tensor<?x3xf32>
  return %l1, %p : tensor<?x3xf32>, tensor<?x3xf32>
}
