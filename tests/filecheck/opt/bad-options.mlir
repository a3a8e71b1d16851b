// Bad flags and pipelines are one line 'error: ...' naming the flag, before the input is read.
// RUN: not layoutkit opt %s --cse=max=2 2>&1 | filecheck %s --check-prefix=OPTIONS
// OPTIONS: {{^}}error: --cse: takes no options, got 'cse{max=2}'
// RUN: not layoutkit opt %s --no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: {{^}}error: No such option '--no-such-pass'.
// RUN: not layoutkit opt %s --pass-pipeline='builtin.module(cse,nope)' 2>&1 | filecheck %s --check-prefix=NOPASS
// NOPASS: {{^}}error: --pass-pipeline: no pass or pipeline named 'nope' (see layoutkit opt --list-passes)
// RUN: not layoutkit opt %s --pass-pipeline='builtin.module(cse{)' 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: {{^}}error: --pass-pipeline: column 20: Expected argument name here (in 'builtin.module(cse{)')
// RUN: not layoutkit opt %s --pass-pipeline='builtin.module(func.func(cse))' 2>&1 | filecheck %s --check-prefix=NESTED
// NESTED: {{^}}error: --pass-pipeline: nested pipelines are not supported
// RUN: not layoutkit opt %s --cse --pass-pipeline='builtin.module(dce)' 2>&1 | filecheck %s --check-prefix=BOTH
// BOTH: {{^}}error: --pass-pipeline: cannot be combined with pass flags (--cse)
// RUN: not layoutkit opt %s.missing --cse 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: {{^}}error: FILE: cannot read '{{.*}}bad-options.mlir.missing': No such file or directory
// RUN: not layoutkit opt %s -o %t.no/such/dir/out.mlir 2>&1 | filecheck %s --check-prefix=OUTPUT
// OUTPUT: {{^}}error: --output: cannot write '{{.*}}': No such file or directory

module {
}
