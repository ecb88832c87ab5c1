"""Inline LaTeX in titles and abstracts made readable as plain text: `$K^2$VAE` -> `K²VAE`.

Paper lists copy LaTeX from the submissions (`$\\epsilon$-VAE`, `\\emph{...}`, `$O(\\sqrt{n})$`).
Shown raw it reads as noise in hover labels, tables and on a projector, and it splits words for
keyphrases. This keeps the meaning with Unicode where a character exists and drops the markup
otherwise. It is a reading aid, not a TeX renderer: unknown commands lose their backslash.
"""

from __future__ import annotations

import re

# Commands whose one braced argument is the text to keep.
_WRAPPERS = (
    "emph",
    "textbf",
    "textit",
    "texttt",
    "textsc",
    "textrm",
    "textsf",
    "text",
    "mathrm",
    "mathbf",
    "mathcal",
    "mathbb",
    "mathsf",
    "mathit",
    "mathtt",
    "mathfrak",
    "boldsymbol",
    "bm",
    "operatorname",
    "mbox",
    "url",
    "underline",
)
_SYMBOLS = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "varepsilon": "ε",
    "zeta": "ζ",
    "eta": "η",
    "theta": "θ",
    "vartheta": "θ",
    "iota": "ι",
    "kappa": "κ",
    "lambda": "λ",
    "mu": "μ",
    "nu": "ν",
    "xi": "ξ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "upsilon": "υ",
    "phi": "φ",
    "varphi": "φ",
    "chi": "χ",
    "psi": "ψ",
    "omega": "ω",
    "Gamma": "Γ",
    "Delta": "Δ",
    "Theta": "Θ",
    "Lambda": "Λ",
    "Xi": "Ξ",
    "Pi": "Π",
    "Sigma": "Σ",
    "Phi": "Φ",
    "Psi": "Ψ",
    "Omega": "Ω",
    "ell": "ℓ",
    "infty": "∞",
    "times": "×",
    "cdot": "·",
    "cdots": "⋯",
    "ldots": "…",
    "dots": "…",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "neq": "≠",
    "approx": "≈",
    "sim": "∼",
    "propto": "∝",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "in": "∈",
    "subset": "⊂",
    "subseteq": "⊆",
    "cup": "∪",
    "cap": "∩",
    "sqrt": "√",
    "sum": "Σ",
    "prod": "Π",
    "int": "∫",
    "partial": "∂",
    "nabla": "∇",
    "pm": "±",
    "mp": "∓",
    "star": "⋆",
    "circ": "∘",
    "log": "log",
    "exp": "exp",
    "min": "min",
    "max": "max",
    "mid": "|",
    "%": "%",
    "&": "&",
    "_": "_",
    "#": "#",
    "$": "$",
    "{": "{",
    "}": "}",
    ",": " ",
    ";": " ",
    "quad": " ",
    "qquad": " ",
    "!": "",
}
# Accents over a symbol, as Unicode's combining marks: \widetilde{\Theta} -> Θ̃.
_COMBINING = {
    "tilde": "\u0303",
    "widetilde": "\u0303",
    "hat": "\u0302",
    "widehat": "\u0302",
    "bar": "\u0304",
    "overline": "\u0305",
    "vec": "\u20d7",
    "dot": "\u0307",
    "ddot": "\u0308",
}
_SUPERSCRIPT = str.maketrans("0123456789+-=()nikT*", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏᵀ*")
_SUBSCRIPT = str.maketrans("0123456789+-=()aeijkmnoprstx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₘₙₒₚᵣₛₜₓ")

_MATH = re.compile(r"(?<!\\)\$(?!\s)([^$]{1,200}?)(?<![\s\\])\$")
_WRAPPER = re.compile(r"\\(?:" + "|".join(_WRAPPERS) + r")\s*\{([^{}]*)\}")
_HREF = re.compile(r"\\href\s*\{[^{}]*\}\s*\{([^{}]*)\}")
_ARGUMENT = r"(?:\{([^{}]*)\}|(\\[A-Za-z]+|[A-Za-z0-9]))"  # {...}, or one command or character
_ACCENT = re.compile(r"\\(" + "|".join(sorted(_COMBINING, key=len, reverse=True)) + r")(?![A-Za-z])\s*" + _ARGUMENT)
_FRACTION = re.compile(r"\\[dt]?frac(?![A-Za-z])\s*" + _ARGUMENT + r"\s*" + _ARGUMENT)
_COMMAND = re.compile(r"\\([A-Za-z]+|[%&_#${},;!])")
_SCRIPT = re.compile(r"([\^_])(\{([^{}]*)\}|([A-Za-z0-9*]))")
_POWER = re.compile(r"\^\{?(\d{1,3})\}?")  # a power left outside maths once its $ pairs are split: I$^2$MoE


def readable(text: str) -> str:
    """`text` with inline LaTeX turned into plain Unicode text; text without `$` or `\\` is returned as is.

    >>> readable(r"$K^2$VAE and $\\epsilon$-VAE: \\emph{fast} $O(\\sqrt{n})$ rates for $\\ell_1$")
    'K²VAE and ε-VAE: fast O(√n) rates for ℓ₁'
    >>> readable(r"$O(\\frac n k)$ and $\\widetilde{\\Theta}(\\frac{n+1}{\\log n})$")
    'O(n/k) and Θ̃((n+1)/(log n))'
    """
    if "$" not in text and "\\" not in text:
        return text
    text = _MATH.sub(lambda m: _math(m.group(1)), _wrapped(text))  # wrappers first: \texttt{I$^2$MoE}
    text = _POWER.sub(lambda m: m.group(1).translate(_SUPERSCRIPT), _commands(text))
    return " ".join(text.split())


def _math(formula: str) -> str:
    return _SCRIPT.sub(_script, _commands(formula)).replace("{", "").replace("}", "")


def _wrapped(text: str) -> str:
    for _ in range(3):  # nested wrappers, innermost first: \textbf{\emph{x}}
        if "\\" not in text:  # each of these commands starts with one
            break
        before = text
        text = _HREF.sub(r"\1", _WRAPPER.sub(r"\1", text))
        text = _FRACTION.sub(_fraction, _ACCENT.sub(_accent, text))
        if text == before:  # nothing left to unwrap: another round would change nothing either
            break
    return text


def _argument(match: re.Match[str], group: int) -> str:
    """A command's argument (braced, or one token) made readable."""
    braced, token = match.group(group), match.group(group + 1)
    return _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), braced if braced is not None else token)


def _accent(match: re.Match[str]) -> str:
    """One symbol with its accent as a combining mark; a longer argument keeps its text unmarked."""
    body = _argument(match, 2).strip()
    return body + _COMBINING[match.group(1)] if len(body) == 1 else body


def _fraction(match: re.Match[str]) -> str:
    """a/b, each side in parentheses unless it is one word or number: \frac{n+1}{k} -> (n+1)/k."""
    sides = [_argument(match, 1).strip(), _argument(match, 3).strip()]
    return "/".join(side if side.isalnum() else f"({side})" for side in sides)


def _commands(text: str) -> str:
    return _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(1)), _wrapped(text))


def _script(match: re.Match[str]) -> str:
    mark, body = match.group(1), match.group(3) if match.group(3) is not None else match.group(4)
    table = _SUPERSCRIPT if mark == "^" else _SUBSCRIPT
    converted = body.translate(table)
    # A character with no Unicode super/subscript keeps the plain form, marked as TeX would.
    if all(a != b or a == "*" for a, b in zip(body, converted)):
        return converted
    return f"{mark}{body}" if len(body) == 1 or body.startswith("(") else f"{mark}({body})"
