func.func @matmul_k(%a: tensor<?x784xf32>, %b: tensor<748x10xf32>) {
  // expected-error @+1 {{'rlx.matmul' op expects contracting dims to match: lhs [?,784] has K = 784, rhs [748,10] has K = 748}}
  %0 = rlx.matmul %a, %b : (tensor<?x784xf32>, tensor<748x10xf32>) -> tensor<?x10xf32>
  return
}
