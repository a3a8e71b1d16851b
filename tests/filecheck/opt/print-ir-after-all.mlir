// --print-ir-after-all prints, on stderr, a header per pass as MLIR does
// (// -----// IR Dump After <Pass class> (<pass flag>) //----- //) and the module after it.
// RUN: layoutkit opt %s --canonicalize --cse --print-ir-after-all -o %t 2>&1 | filecheck %s
// RUN: filecheck %s --check-prefix=OUT < %t

module {
  func.func @f(%x: index) -> index {
    %c0 = arith.constant 0 : index
    %a = arith.addi %x, %c0 : index
    %b = arith.muli %a, %a : index
    %c = arith.muli %a, %a : index
    %d = arith.addi %b, %c : index
    func.return %d : index
  }
}

// CHECK:      // -----// IR Dump After CanonicalizePass (canonicalize) //----- //
// CHECK-NEXT: builtin.module {
// CHECK:        %b = arith.muli %x, %x : index
// CHECK-NEXT:   %c = arith.muli %x, %x : index
// CHECK:      // -----// IR Dump After CommonSubexpressionElimination (cse) //----- //
// CHECK-NEXT: builtin.module {
// CHECK:        %b = arith.muli %x, %x : index
// CHECK-NEXT:   %d = arith.addi %b, %b : index
// CHECK-NOT:  IR Dump

// OUT:      %b = arith.muli %x, %x : index
// OUT-NEXT: %d = arith.addi %b, %b : index
