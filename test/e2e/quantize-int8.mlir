// rlxc --quantize=int8: two dense layers with int8 matmuls, against the
// quantization scheme written out as plain loops (int8_matmuls.py), with
// activation scales measured per call (dynamic) and from calibration, with
// static shapes, a dynamic batch, and two dynamic leading dims.
// RUN: python3 %inputs/int8_matmuls.py weights %t.w.safetensors
// RUN: python3 %inputs/int8_matmuls.py input %t.calib.npy 9,37 2
// RUN: python3 %inputs/int8_matmuls.py input %t.calib2.npy 4,37 3
// RUN: python3 %inputs/int8_matmuls.py input %t.x5.npy 5,37 1
// RUN: python3 %inputs/int8_matmuls.py input %t.x23.npy 2,3,37 4

// RUN: python3 %inputs/int8_matmuls.py model static > %t.static.mlir
// RUN: rlxc %t.static.mlir --quantize=int8 -o %t.static.so
// RUN: rlx-run %t.static.so --weights %t.w.safetensors --input x=%t.x5.npy --outputs %t.out1.safetensors
// RUN: python3 %inputs/int8_matmuls.py check %t.x5.npy %t.out1.safetensors | FileCheck %s
// A static input shape takes calibration batches of its own shape only.
// RUN: python3 %inputs/int8_matmuls.py input %t.calib5.npy 5,37 2
// RUN: rlxc %t.static.mlir --quantize=int8 --calibrate x=%t.calib5.npy --weights %t.w.safetensors -o %t.static-cal.so
// RUN: rlx-run %t.static-cal.so --weights %t.w.safetensors --input x=%t.x5.npy --outputs %t.out2.safetensors
// RUN: python3 %inputs/int8_matmuls.py check %t.x5.npy %t.out2.safetensors %t.calib5.npy | FileCheck %s

// RUN: python3 %inputs/int8_matmuls.py model dyn > %t.dyn.mlir
// RUN: rlxc %t.dyn.mlir --quantize=int8 -o %t.dyn.so
// RUN: rlx-run %t.dyn.so --weights %t.w.safetensors --input x=%t.x5.npy --outputs %t.out3.safetensors
// RUN: python3 %inputs/int8_matmuls.py check %t.x5.npy %t.out3.safetensors | FileCheck %s
// RUN: rlxc %t.dyn.mlir --quantize=int8 --calibrate %t.calib.npy --weights %t.w.safetensors -o %t.dyn-cal.so
// RUN: rlx-run %t.dyn-cal.so --weights %t.w.safetensors --input x=%t.x5.npy --outputs %t.out4.safetensors
// RUN: python3 %inputs/int8_matmuls.py check %t.x5.npy %t.out4.safetensors %t.calib.npy | FileCheck %s

// RUN: python3 %inputs/int8_matmuls.py model alldyn > %t.alldyn.mlir
// RUN: rlxc %t.alldyn.mlir --quantize=int8 -o %t.alldyn.so
// RUN: rlx-run %t.alldyn.so --weights %t.w.safetensors --input x=%t.x23.npy --outputs %t.out5.safetensors
// RUN: python3 %inputs/int8_matmuls.py check %t.x23.npy %t.out5.safetensors | FileCheck %s
// Two batches of different shapes: the ranges are the largest of both.
// RUN: python3 %inputs/int8_matmuls.py input %t.calib3d.npy 3,3,37 2
// RUN: python3 %inputs/int8_matmuls.py input %t.calib3d-b.npy 1,2,37 5
// RUN: rlxc %t.alldyn.mlir --quantize=int8 --calibrate x=%t.calib3d.npy --calibrate x=%t.calib3d-b.npy --weights %t.w.safetensors -o %t.alldyn-cal.so
// RUN: rlx-run %t.alldyn-cal.so --weights %t.w.safetensors --input x=%t.x23.npy --outputs %t.out6.safetensors
// RUN: python3 %inputs/int8_matmuls.py check %t.x23.npy %t.out6.safetensors %t.calib3d.npy %t.calib3d-b.npy | FileCheck %s

// CHECK: values match the int8 reference

// Percentile calibration: a batch with one outlier 16 times the others'
// bound. The 99th percentile of |activation| (from a 2048-bin histogram)
// clips it, on the input and on the hidden layer; the reference takes the
// same percentile of the exact f32 activations, so the max (the outlier's
// range) would not match it. Two batches, one of them without the outlier.
// RUN: python3 %inputs/int8_matmuls.py outlier %t.out-calib.npy 9,37 6
// RUN: rlxc %t.dyn.mlir --quantize=int8 --calibrate %t.out-calib.npy --calibrate %t.calib2.npy --calibrate-method=percentile --calibrate-percentile=99 --weights %t.w.safetensors -o %t.pct.so
// RUN: rlx-run %t.pct.so --weights %t.w.safetensors --input x=%t.x5.npy --outputs %t.out7.safetensors
// RUN: python3 %inputs/int8_matmuls.py check-percentile 99 %t.x5.npy %t.out7.safetensors %t.out-calib.npy %t.calib2.npy | FileCheck %s
