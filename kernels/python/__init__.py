"""Python versions of the project's kernels: one module per kernel, one plain function of
`range()` loops, the same arguments and arithmetic as the C version in kernels/c/."""
