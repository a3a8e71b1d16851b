// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config{tile-sizes=32,32,16},pcf-apply-workgroup-tiling,pcf-wrap-workgroup-body,pcf-form-run-cluster-flow,pcf-introduce-shared-memory-copies)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 5: subgroup-scope panels for A (32x16) and B (16x32); each K step is a copy cluster
// (no payload) followed by the compute cluster reading the panels.

// CHECK:      %lds_a = pcf.alloc() : !pcf.sref<32x16xf16, #iree_gpu.subgroup_scope>
// CHECK-NEXT: %lds_b = pcf.alloc() : !pcf.sref<16x32xf16, #iree_gpu.subgroup_scope>
// CHECK:      scf.for %kk
// CHECK:        pcf.shared_executor.run_cluster %tg : !pcf.threadgroup<#iree_gpu.subgroup_scope> {
// CHECK:          pcf.write_slice %xp into %lds_a[0, 0] [32, 16] [1, 1]
// CHECK:          pcf.write_slice %yp into %lds_b[0, 0] [16, 32] [1, 1]
// CHECK-NEXT:     pcf.yield
// CHECK:        %next = pcf.shared_executor.run_cluster %tg ins(%cur
// CHECK:          %xs = pcf.read_slice %lds_a[0, 0] [32, 16] [1, 1]
// CHECK-NEXT:     %ys = pcf.read_slice %lds_b[0, 0] [16, 32] [1, 1]
// CHECK-NEXT:     %z = linalg.matmul ins(%xs, %ys
