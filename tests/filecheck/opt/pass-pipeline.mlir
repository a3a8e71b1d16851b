// The same passes three ways: flags in order, --pass-pipeline text (with an empty option
// list), and the named pipeline 'cleanup' (canonicalize,cse), as a flag or inside the text.
// RUN: layoutkit opt %s --canonicalize --cse | filecheck %s
// RUN: layoutkit opt %s --pass-pipeline='builtin.module(canonicalize,cse{})' | filecheck %s
// RUN: layoutkit opt %s --pass-pipeline=canonicalize,cse | filecheck %s
// RUN: layoutkit opt %s --cleanup | filecheck %s
// RUN: layoutkit opt %s --pass-pipeline='builtin.module(cleanup)' | filecheck %s
// Flags run in the order given: cse first merges nothing (%c3 and %three differ until folded).
// RUN: layoutkit opt %s --cse --canonicalize | filecheck %s --check-prefix=ORDER

module {
  func.func @f(%x: index) -> index {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %three = arith.addi %c1, %c2 : index
    %a = arith.muli %x, %c3 : index
    %b = arith.muli %x, %three : index
    %s = arith.addi %a, %b : index
    func.return %s : index
  }
}

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    %a = arith.muli %x, %c3 : index
// CHECK-NEXT:    %s = arith.addi %a, %a : index

// ORDER-LABEL: func.func @f
// ORDER:         %a = arith.muli %x, %{{.*}} : index
// ORDER-NEXT:    %b = arith.muli %x, %{{.*}} : index
// ORDER-NEXT:    %s = arith.addi %a, %b : index
