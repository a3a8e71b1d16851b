// RUN: layoutkit opt --pass-pipeline="builtin.module(pcf-create-dispatch-config,pcf-apply-workgroup-tiling)" %S/../../../../examples/pcf/matmul_f16.mlir | filecheck %s
// Stage 2: a workgroup pcf.loop over ceil(M/128) x ceil(N/256) tiles; each tile's rows are
// min(128, M - 128 i), its columns min(256, N - 256 j); the tile's matmul reads the C tile from
// the loop's sref and writes it back.

// CHECK-LABEL: func.func @matmul
// CHECK:         %M = tensor.dim %a, %c0 : tensor<?x?xf16>
// CHECK:         %N = tensor.dim %b, %c1 : tensor<?x?xf16>
// CHECK:         %tm = arith.ceildivui %M, %tile_m : index
// CHECK-NEXT:    %tn = arith.ceildivui %N, %tile_n : index
// CHECK:         %r = pcf.loop scope(#iree_codegen.workgroup_scope<linearize>) count(%tm, %tn)
// CHECK-NEXT:      execute(%out = %c)[%i: index, %j: index]
// CHECK-NEXT:      : (!pcf.sref<?x?xf32, sync(#iree_codegen.workgroup_scope<linearize>)>)
// CHECK-NEXT:      -> (tensor<?x?xf32>) {
// CHECK:           %m0 = arith.muli %i, %tile_m : index
// CHECK:           %mr = arith.subi %M, %m0 : index
// CHECK-NEXT:      %ms = arith.minui %mr, %tile_m : index
// CHECK:           %at = tensor.extract_slice %a[%m0, 0] [%ms, %K] [1, 1]
// CHECK-NEXT:      %bt = tensor.extract_slice %b[0, %n0] [%K, %ns] [1, 1]
// CHECK-NEXT:      %ct = pcf.read_slice %out[%m0, %n0] [%ms, %ns] [1, 1]
// CHECK-NEXT:      %d = linalg.matmul {lowering_config = {{.*}}} ins(%at, %bt : tensor<?x?xf16>, tensor<?x?xf16>) outs(%ct : tensor<?x?xf32>)
// CHECK-NEXT:      pcf.write_slice %d into %out[%m0, %n0] [%ms, %ns] [1, 1]
// CHECK-NEXT:      pcf.return
// CHECK:         func.return %r : tensor<?x?xf32>
