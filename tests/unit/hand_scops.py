"""Scops built by hand with ScopBuilder: tests of the middle and back end need no frontend."""

from __future__ import annotations

from polycuda.frontend.builder import ScopBuilder
from polycuda.ir.expr import BinOp, Const, Ref, Var
from polycuda.ir.scop import Scop


def _sum(*terms):
    expr = terms[0]
    for t in terms[1:]:
        expr = BinOp("+", expr, t)
    return expr


def _minus(e, k):
    return BinOp("-", e, Const(k))


def _plus(e, k):
    return BinOp("+", e, Const(k))


def figure2() -> Scop:
    """Di et al. 2012, Figure 2: for t in 1..T, i in 1..I: A[i] = 0.5 * (A[i] + A[i+1])."""
    b = ScopBuilder("fig2")
    b.add_arg("T", "param", "int")
    b.add_arg("I", "param", "int")
    b.add_arg("A", "array", "double", (_plus(Var("I"), 2),))
    b.enter_loop("t", Const(1), Var("T"), 1)
    b.enter_loop("i", Const(1), Var("I"), 1)
    i = Var("i")
    rhs = BinOp("*", Const(0.5, "double"), BinOp("+", Ref("A", (i,)), Ref("A", (_plus(i, 1),))))
    b.add_statement(Ref("A", (i,)), "=", rhs)
    b.exit_loop()
    b.exit_loop()
    return b.build()


def jacobi_2d() -> Scop:
    """T steps of two 5-point sweeps A -> B -> A on an n x n grid."""
    b = ScopBuilder("jacobi_2d")
    b.add_arg("T", "param", "int")
    b.add_arg("n", "param", "int")
    for name in ("A", "B"):
        b.add_arg(name, "array", "double", (Var("n"), Var("n")))
    b.enter_loop("t", Const(0), _minus(Var("T"), 1), 1)
    for src, dst in (("A", "B"), ("B", "A")):
        b.enter_loop("i", Const(1), _minus(Var("n"), 2), 1)
        b.enter_loop("j", Const(1), _minus(Var("n"), 2), 1)
        i, j = Var("i"), Var("j")
        pts = [(i, j), (_minus(i, 1), j), (_plus(i, 1), j), (i, _minus(j, 1)), (i, _plus(j, 1))]
        rhs = BinOp("*", Const(0.2, "double"), _sum(*[Ref(src, p) for p in pts]))
        b.add_statement(Ref(dst, (i, j)), "=", rhs)
        b.exit_loop()
        b.exit_loop()
    b.exit_loop()
    return b.build()


def gemm_triangular() -> Scop:
    """C[i][j] += alpha * A[i][k] * B[k][j] for j <= i (a triangular domain, a reduction)."""
    b = ScopBuilder("trigemm")
    b.add_arg("n", "param", "int")
    b.add_arg("alpha", "scalar", "double")
    for name in ("C", "A", "B"):
        b.add_arg(name, "array", "double", (Var("n"), Var("n")))
    b.enter_loop("i", Const(0), _minus(Var("n"), 1), 1)
    b.enter_loop("j", Const(0), Var("i"), 1)
    i, j, k = Var("i"), Var("j"), Var("k")
    b.add_statement(Ref("C", (i, j)), "*=", Const(0.5, "double"))
    b.enter_loop("k", Const(0), _minus(Var("n"), 1), 1)
    rhs = BinOp("*", Var("alpha"), BinOp("*", Ref("A", (i, k)), Ref("B", (k, j))))
    b.add_statement(Ref("C", (i, j)), "+=", rhs)
    b.exit_loop()
    b.exit_loop()
    b.exit_loop()
    return b.build()


def sor_1d() -> Scop:
    """In-place Gauss-Seidel: every loop carries a dependence (DOACROSS)."""
    b = ScopBuilder("sor_1d")
    b.add_arg("T", "param", "int")
    b.add_arg("n", "param", "int")
    b.add_arg("A", "array", "double", (Var("n"),))
    b.enter_loop("t", Const(0), _minus(Var("T"), 1), 1)
    b.enter_loop("i", Const(1), _minus(Var("n"), 2), 1)
    i = Var("i")
    rhs = BinOp("*", Const(0.25, "double"),
                _sum(Ref("A", (_minus(i, 1),)), BinOp("*", Const(2.0, "double"), Ref("A", (i,))),
                     Ref("A", (_plus(i, 1),))))
    b.add_statement(Ref("A", (i,)), "=", rhs)
    b.exit_loop()
    b.exit_loop()
    return b.build()


def reverse_scan() -> Scop:
    """A decreasing loop with a scalar cell: s accumulates x from the end (sequential)."""
    b = ScopBuilder("rscan")
    b.add_arg("n", "param", "int")
    b.add_arg("x", "array", "double", (Var("n"),))
    b.add_arg("y", "array", "double", (Var("n"),))
    b.add_local("s", "double")
    b.add_statement(Ref("s", ()), "=", Const(0.0, "double"))
    b.enter_loop("i", Const(0), _minus(Var("n"), 1), -1)
    b.add_statement(Ref("s", ()), "+=", Ref("x", (Var("i"),)))
    b.add_statement(Ref("y", (Var("i"),)), "=", Ref("s", ()))
    b.exit_loop()
    return b.build()


def numpy_reference(name: str):
    """Pure-Python oracles of the scops above, on named arguments (in place)."""

    def fig2(a):
        for _t in range(1, a["T"] + 1):
            for i in range(1, a["I"] + 1):
                a["A"][i] = 0.5 * (a["A"][i] + a["A"][i + 1])

    def jacobi(a):
        A, B, n = a["A"], a["B"], a["n"]
        for _t in range(a["T"]):
            for src, dst in ((A, B), (B, A)):
                dst[1:n - 1, 1:n - 1] = 0.2 * (src[1:n - 1, 1:n - 1] + src[:n - 2, 1:n - 1]
                                                + src[2:, 1:n - 1] + src[1:n - 1, :n - 2]
                                                + src[1:n - 1, 2:])

    def trigemm(a):
        C, A, B, n, alpha = a["C"], a["A"], a["B"], a["n"], a["alpha"]
        for i in range(n):
            for j in range(i + 1):
                C[i, j] *= 0.5
                for k in range(n):
                    C[i, j] += alpha * A[i, k] * B[k, j]

    def sor(a):
        A = a["A"]
        for _t in range(a["T"]):
            for i in range(1, a["n"] - 1):
                A[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1])

    def rscan(a):
        s = 0.0
        for i in range(a["n"] - 1, -1, -1):
            s += a["x"][i]
            a["y"][i] = s

    return {"fig2": fig2, "jacobi_2d": jacobi, "trigemm": trigemm, "sor_1d": sor,
            "rscan": rscan}[name]


ALL = (figure2, jacobi_2d, gemm_triangular, sor_1d, reverse_scan)
