// The README's main job: compile the example MLP and run it with its weights
// bound by name. Expected values computed independently with numpy in f64.

// The outputs file holds both outputs by name.
// BENCH: median
// BENCH-SAME: min
// BENCH-SAME: max

// Weights of another model: the unknown names are reported, nothing runs.
// UNKNOWN: rlx-run: error: {{.*}}unknown weight 'fc1_w'

// Every manifest field is visible.
// INFO: target: cpu
// INFO: entry point 'forward'
// INFO: x: f32[?,4]
// INFO: encoder.layers.0.fc1.weight: f32[4,8]
// INFO: logits: f32[?,3]
