// A forward TOSA model exported elsewhere becomes trainable: rlxc adds
// loss_value_and_grad, differentiating w.r.t. every ml_program weight, with
// outputs named value and grad.<weight>. Expected values: central finite
// differences in f64 (numpy), not rlx, to the digits an f32 computation with
// vectorized (few-ulp) tanh keeps.

// The gradients file is keyed by the same names.
// INFO: entry point 'loss_value_and_grad'
// INFO: outputs:
// INFO-NEXT: value: f32[1,1,1]
// INFO-NEXT: grad.w1: f32[1,4,6]
// INFO-NEXT: grad.b1: f32[1,1,6]
// INFO-NEXT: grad.w2: f32[1,6,2]

// --grad alone gives only the gradients.
// GRAD: entry point 'loss_grad'
// GRAD: outputs:
// GRAD-NEXT: grad.w1
