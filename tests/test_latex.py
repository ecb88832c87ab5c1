import json

import pytest

from lib.stages.latex import readable
from lib.stages.load import load_papers


@pytest.mark.parametrize(
    "raw, shown",
    [
        (r"$K^2$VAE: a Koopman-Kalman enhanced VAE", "K²VAE: a Koopman-Kalman enhanced VAE"),
        (r"$\epsilon$-VAE: Denoising as Visual Decoding", "ε-VAE: Denoising as Visual Decoding"),
        (
            r"$\texttt{I$^2$MoE}$: Interpretable Multimodal Interaction-aware Mixture-of-Experts",
            "I²MoE: Interpretable Multimodal Interaction-aware Mixture-of-Experts",
        ),
        (r"bounds of $O_{\eta}(\sqrt{W})$ for $|\mathcal{U}|$ users", "bounds of O_η(√W) for |U| users"),
        (r"our results, \emph{collectively showcasing} a coupling", "our results, collectively showcasing a coupling"),
        (r"code at \url{https://example.org/x}", "code at https://example.org/x"),
        (r"improves by 50\% on $\ell_1$ tasks", "improves by 50% on ℓ₁ tasks"),
        # Fractions and accents keep their meaning (they read "O(frac n k)" and "Θ" before).
        (r"a $O(\frac n k)$ bound", "a O(n/k) bound"),
        (r"rates of $\frac{\log n}{n+1}$", "rates of (log n)/(n+1)"),
        (r"$\widetilde{\Theta}(\sqrt{T})$ regret", "Θ\u0303(√T) regret"),
        (r"estimates $\hat{x}$ and $\bar x$", "estimates x\u0302 and x\u0304"),
    ],
)
def test_inline_latex_reads_as_text(raw, shown):
    assert readable(raw) == shown


@pytest.mark.parametrize("text", ["Costs $100 and $200 per run", "a_b snake_case and C++", "Plain title", ""])
def test_text_without_latex_is_left_alone(text):
    assert readable(text) == text


def test_loaded_titles_and_abstracts_are_readable(tmp_path):
    path = tmp_path / "latex.json"
    path.write_text(json.dumps([{"title": r"$K^2$VAE", "abstract": r"We prove \emph{tight} $O(\sqrt{n})$ bounds."}]))
    paper = load_papers(path).papers.iloc[0]
    assert (paper["title"], paper["abstract"]) == ("K²VAE", "We prove tight O(√n) bounds.")
