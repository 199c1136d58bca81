"""Integer expressions of k and m in a sweep file (``k^2``, ``k^2..k^6``), parsed without eval."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from experiments.sweep.checks import _show
from experiments.sweep.limits import LIMITS

__all__ = ["KExpr"]

_EXPR_MAX = 10**18
_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Add, ast.Sub,
                  ast.Mult, ast.Pow, ast.FloorDiv, ast.USub, ast.UAdd, ast.Load)


@dataclass(frozen=True)
class KExpr:
    """An integer expression of ``k`` and ``m`` (``k^2``, ``2*k+1``) or a range of them.

    ``"a..b"`` with both ends powers of the same base (``k^2..k^6``) expands over the exponents,
    as AlShuhail2021 section 5.3.5 sweeps the maximum cluster size "from k^2 to k^6" (k=2:
    4, 8, 16, 32, 64); any other ``"a..b"`` is the inclusive integer range a, a+1, ..., b.
    ``^`` is a power. Only integers, ``k``, ``m``, ``+ - * // ^`` and parentheses are allowed.
    """

    text: str

    @staticmethod
    def _parse(text: str) -> ast.Expression:
        if len(text) > LIMITS.expr_chars:
            raise ValueError(f"{_show(text)} is too long for an expression of k and m "
                             f"(at most {LIMITS.expr_chars} characters)")
        try:
            tree = ast.parse(text.replace("^", "**"), mode="eval")
        except (SyntaxError, ValueError):
            raise ValueError(f"'{text}' is not an expression of k and m") from None
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED_NODES):
                raise ValueError(f"'{text}' may use only integers, k, m, + - * // ^ and parentheses")
            if isinstance(node, ast.Name) and node.id not in ("k", "m"):
                raise ValueError(f"'{text}' names '{node.id}'; only k and m are known")
            if isinstance(node, ast.Constant) and (isinstance(node.value, bool) or not isinstance(node.value, int)):
                raise ValueError(f"'{text}' holds {_show(node.value)}; only integers are allowed")
        return tree

    def check(self) -> None:
        """Raise ValueError when the text is not a valid expression or range."""
        if len(self.text) > LIMITS.expr_chars:
            raise ValueError(f"{_show(self.text)} is too long for an expression of k and m "
                             f"(at most {LIMITS.expr_chars} characters)")
        parts = self.text.split("..")
        if len(parts) > 2 or not all(p.strip() for p in parts):
            raise ValueError(f"'{self.text}' is neither an expression nor a range 'a..b'")
        for part in parts:
            self._parse(part.strip())

    @staticmethod
    def _bounded(text: str, value: int) -> int:
        """Every intermediate value stays within 10^18, so no expression builds a huge integer."""
        if abs(value) > _EXPR_MAX:
            raise ValueError(f"'{text}' reaches a value above 10^18")
        return value

    @classmethod
    def _pow(cls, text: str, base: int, exponent: int) -> int:
        if exponent < 0 or exponent > 64:
            raise ValueError(f"'{text}' raises to the power {exponent}; powers 0..64 only")
        if abs(base) > 1 and (abs(base).bit_length() - 1) * exponent > 62:
            raise ValueError(f"'{text}' reaches a value above 10^18")
        return cls._bounded(text, base**exponent)

    @classmethod
    def _eval(cls, text: str, k: int, m: int) -> int:
        def ev(node: ast.AST) -> int:
            if isinstance(node, ast.Expression):
                return ev(node.body)
            if isinstance(node, ast.Constant):
                return cls._bounded(text, int(node.value))
            if isinstance(node, ast.Name):
                return k if node.id == "k" else m
            if isinstance(node, ast.UnaryOp):
                v = ev(node.operand)
                return -v if isinstance(node.op, ast.USub) else v
            assert isinstance(node, ast.BinOp)
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return cls._bounded(text, a + b)
            if isinstance(node.op, ast.Sub):
                return cls._bounded(text, a - b)
            if isinstance(node.op, ast.Mult):
                return cls._bounded(text, a * b)
            if isinstance(node.op, ast.FloorDiv):
                if b == 0:
                    raise ValueError(f"'{text}' divides by zero")
                return a // b
            return cls._pow(text, a, b)

        return ev(cls._parse(text))

    @staticmethod
    def _power(text: str) -> tuple[str, str] | None:
        tree = ast.parse(text.replace("^", "**"), mode="eval").body
        if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.Pow):
            return ast.unparse(tree.left), ast.unparse(tree.right)
        return None

    def _count(self, lo: int, hi: int, k: int, m: int) -> None:
        if hi - lo + 1 > LIMITS.range_values:
            raise ValueError(f"'{self.text}' gives {hi - lo + 1:,} values for k={k}, m={m}; "
                             f"a range gives at most {LIMITS.range_values:,}")

    def values(self, k: int, m: int) -> list[int]:
        """The integers this expression gives for one (k, m).

        ValueError when it is invalid, when a value passes 10^18 or when a range would give more
        than :attr:`Limits.range_values` values (``"1..k^40"``), before anything is allocated.
        """
        parts = [p.strip() for p in self.text.split("..")]
        if len(parts) == 1:
            return [self._eval(parts[0], k, m)]
        for part in parts:
            self._parse(part)
        lo_pow, hi_pow = self._power(parts[0]), self._power(parts[1])
        if lo_pow and hi_pow and lo_pow[0] == hi_pow[0]:
            base = self._eval(lo_pow[0], k, m)
            lo, hi = self._eval(lo_pow[1], k, m), self._eval(hi_pow[1], k, m)
            self._count(lo, hi, k, m)
            return [self._pow(self.text, base, e) for e in range(lo, hi + 1)]
        lo, hi = self._eval(parts[0], k, m), self._eval(parts[1], k, m)
        self._count(lo, hi, k, m)
        return list(range(lo, hi + 1))
