func.func @involutions(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %n = rlx.neg %x : tensor<?x4xf32>
  %nn = rlx.neg %n : tensor<?x4xf32>
  %t = rlx.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %tt = rlx.transpose %t {permutation = array<i64: 1, 0>} : (tensor<4x?xf32>) -> tensor<?x4xf32>
  %c = rlx.cast %x : tensor<?x4xf32> -> tensor<?x4xf32>
  return %nn, %tt, %c : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}
