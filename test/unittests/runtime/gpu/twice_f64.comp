// y[i] = 2 * x[i] in f64 (i < n): kernel `twice` of module `double_kernel`,
// whose SPIR-V declares the Float64 capability.
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { double y[]; };
layout(std430, set = 0, binding = 2) readonly buffer N { int n; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < n)
    y[i] = 2.0lf * x[i];
}
