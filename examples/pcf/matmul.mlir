// A matmul in PCF: a workgroup loop over 16x16 tiles of C, each tile's rows split among the
// subgroups (pcf.generic at subgroup scope), each row's columns among the lanes; a lane sums
// its dot product over the dynamic K and writes one element into the result sref.
//   layoutkit compile examples/pcf/matmul.mlir --pipeline pcf-to-gpu --workgroup-size 64 --subgroup-size 16 -o out.mlir
//   layoutkit simulate out.mlir --function matmul --arg a=a.npy --arg b=b.npy --arg c=c.npy --arg tm=2 --arg tn=3 --out res
// c = a @ b with a (16 tm) x K, b K x (16 tn).
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %tm: index, %tn: index) -> memref<?x?xf32> {
  %r = pcf.loop scope(#iree_codegen.workgroup_scope<linearize>) count(%tm, %tn)
    execute(%out = %c)[%bi: index, %bj: index]
         : (!pcf.sref<?x?xf32, sync(#iree_codegen.workgroup_scope<linearize>)>) -> (memref<?x?xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %row0 = arith.muli %bi, %c16 : index
    %col0 = arith.muli %bj, %c16 : index
    pcf.generic scope(#iree_gpu.subgroup_scope)
      execute[%sg: index, %nsg: index] {
      scf.for %i = %sg to %c16 step %nsg {
        %row = arith.addi %row0, %i : index
        pcf.generic scope(#iree_gpu.lane_scope)
          execute[%lane: index, %nlane: index] {
          %zero = arith.constant 0.0 : f32
          scf.for %j = %lane to %c16 step %nlane {
            %col = arith.addi %col0, %j : index
            %sum = scf.for %kk = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
              %x = memref.load %a[%row, %kk] : memref<?x?xf32>
              %y = memref.load %b[%kk, %col] : memref<?x?xf32>
              %p = arith.mulf %x, %y : f32
              %s = arith.addf %acc, %p : f32
              scf.yield %s : f32
            }
            %v = vector.broadcast %sum : f32 to vector<1x1xf32>
            pcf.write_slice %v into %out[%row, %col] [1, 1] [1, 1] : vector<1x1xf32> into !pcf.sref<?x?xf32, sync(#iree_codegen.workgroup_scope<linearize>)>
          }
          pcf.return
        }
      }
      pcf.return
    }
    pcf.return
  }
  return %r : memref<?x?xf32>
}
