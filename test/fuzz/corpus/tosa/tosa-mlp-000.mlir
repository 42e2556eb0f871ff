// A TOSA model with external ml_program weights compiles and runs with its
// weights bound by their global names. Expected values from numpy in f64.

// The import is one phase: the model is plain rlx after it.
// IMPORT: rlx.param "fc1_w" : tensor<1x4x6xf32>
// IMPORT: rlx.matmul
// IMPORT: rlx.tanh
// IMPORT-NOT: tosa.
