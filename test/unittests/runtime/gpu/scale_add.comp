// t[i] = x[i] * scale + c[i % cols], i < n: kernel `scale_add` of the fake
// GPU artifact's module `forward_kernel_0`. Parameters are the bindings of
// set 0 in launch order, scalars in buffers of their own (docs/abi.md).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer C { float c[]; };
layout(std430, set = 0, binding = 2) writeonly buffer T { float t[]; };
layout(std430, set = 0, binding = 3) readonly buffer N { int n; };
layout(std430, set = 0, binding = 4) readonly buffer Cols { int cols; };
layout(std430, set = 0, binding = 5) readonly buffer Scale { float scale; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < n)
    t[i] = x[i] * scale + c[i % cols];
}
