"""The peer: BERTopic as a user would run it offline on the floor's TF-IDF + SVD-128 vectors.

    HF_HUB_OFFLINE=1 python bench/peer_bertopic.py LIST.json

Run by bench/build.py as a fresh process: read the list, embed it the floor's way, then
`BERTopic(...).fit_transform(docs, embeddings)` (its default UMAP to 5 dimensions, HDBSCAN and
c-TF-IDF, with English stop words as its documentation advises) and `visualize_documents(docs,
embeddings=...)`, which runs its own 2D UMAP: a topic map, as PaperMap's build makes one.
No model is downloaded: the embeddings are passed in and no embedding model is set.
Prints one JSON line of seconds per step. Needs requirements-bench.txt.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from floor_build import floor


def main(path: str) -> None:
    steps, docs, embeddings = floor(path)
    from bertopic import BERTopic
    from sklearn.feature_extraction.text import CountVectorizer

    steps.mark("import bertopic")
    topic_model = BERTopic(embedding_model=None, vectorizer_model=CountVectorizer(stop_words="english"))
    topics, _ = topic_model.fit_transform(docs, embeddings)
    steps.mark("fit_transform")
    figure = topic_model.visualize_documents(docs, embeddings=embeddings)
    steps.mark("visualize_documents")
    steps.print(rows=len(docs), topics=len(set(topics)), traces=len(figure.data))


if __name__ == "__main__":
    main(sys.argv[1])
