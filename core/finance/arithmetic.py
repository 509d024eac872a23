"""The one arithmetic of the project: safe evaluation of typed expressions over Python's ast (no eval), and
the growth, ratio and difference every computed figure uses."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

from core.text.figures import find_figures


class CalculationError(ValueError):
    """An expression that is not plain arithmetic, or that cannot be computed."""


_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
# Bounds keep a hostile expression from burning CPU or memory (e.g. 9**9**9).
_MAX_EXPONENT = 100
_MAX_LENGTH = 500


def _normalise(expression: str) -> str:
    """Rewrite filing-style numbers into Python: '$1,234' -> 1234, '12.5%' -> (12.5/100), '(5)' stays."""
    text = expression.replace("−", "-").replace("×", "*").replace("÷", "/").replace("^", "**")
    text = re.sub(r"[$€£]", "", text)
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    text = re.sub(r"(\d+(?:\.\d+)?)\s*%", r"(\1/100)", text)
    return text


def evaluate(expression: str) -> float:
    """Value of an arithmetic expression: + - * / ** unary minus, parentheses, percentages."""
    if len(expression) > _MAX_LENGTH:
        raise CalculationError("expression too long")
    try:
        tree = ast.parse(_normalise(expression).strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculationError(f"not an arithmetic expression: {expression!r}") from exc
    return float(_eval_node(tree.body))


def _eval_node(node: ast.AST) -> float:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval_node(node.left), _eval_node(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise CalculationError("exponent too large")
        if isinstance(node.op, ast.Div) and right == 0:
            raise CalculationError("division by zero")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval_node(node.operand))
    raise CalculationError(f"unsupported element: {type(node).__name__}")


_SYMBOLS: dict[str, Callable[[float, float], float]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
}


def apply(symbol: str, left: float, right: float) -> float:
    """`left symbol right` for one of + - * /; division by zero raises CalculationError."""
    if symbol == "/" and right == 0:
        raise CalculationError("division by zero")
    return _SYMBOLS[symbol](left, right)


def is_expression(text: str) -> bool:
    """True when `text` looks like arithmetic the calculator can evaluate (digits and operators only)."""
    stripped = text.strip()
    if not stripped or not re.search(r"\d", stripped):
        return False
    if not re.fullmatch(r"[\d\s.,$%()+\-*/^×÷−]+", stripped):
        return False
    try:
        evaluate(stripped)
    except CalculationError:
        return False
    return bool(re.search(r"\d\s*[-+*/^×÷−]\s*[\d($]", stripped))


def growth_rate(old: float, new: float) -> float:
    """Percentage change from `old` to `new`."""
    if old == 0:
        raise CalculationError("growth from zero is undefined")
    return (new - old) / abs(old) * 100.0


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator."""
    if denominator == 0:
        raise CalculationError("division by zero")
    return numerator / denominator


def difference(a: float, b: float) -> float:
    """a - b."""
    return a - b


def figure_value(text: str) -> float:
    """The first figure in `text` ('$26,974 million', '(1,234)', '12.5%') as a float; percent kept as-is."""
    figures = find_figures(text)
    if not figures:
        raise CalculationError(f"no figure in {text!r}")
    return figures[0].value
