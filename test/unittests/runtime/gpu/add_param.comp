// y[i] = t[i] + p[i % cols], i < n: kernel `add_param` of the fake GPU
// artifact's module `forward_kernel_1`.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer T { float t[]; };
layout(std430, set = 0, binding = 1) readonly buffer P { float p[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 3) readonly buffer N { int n; };
layout(std430, set = 0, binding = 4) readonly buffer Cols { int cols; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < n)
    y[i] = t[i] + p[i % cols];
}
