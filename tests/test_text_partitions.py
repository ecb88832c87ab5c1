"""A partition's texts as a cluster's task carries them (lib.builder.text_partitions): the same texts
where it runs, in a fraction of their size while the scheduler keeps them."""

import json

import numpy as np

from lib.builder.text_partitions import packed_texts, unpacked_texts


def test_packed_texts_come_back_as_they_were():
    texts = ["", "Plain words.", "Ünïcödé: 深度学习, émojis 🧪", "a" * 100_000, "line\nbreaks\r\nand\ttabs\0"]
    unpacked = unpacked_texts(packed_texts(texts))
    assert isinstance(unpacked, np.ndarray) and unpacked.dtype == object
    assert unpacked.tolist() == texts and all(type(text) is str for text in unpacked)
    assert unpacked_texts(packed_texts([])).tolist() == []


def test_a_partition_of_abstracts_travels_in_under_half_its_size(shared_data):
    records = json.loads((shared_data / "iclr2018.json").read_text(encoding="utf-8"))
    texts = [f"{record['title']}. {record.get('abstract') or ''}" for record in records[:2000]]
    compressed, _ = packed_texts(texts)
    assert len(compressed) < 0.5 * sum(len(text.encode()) for text in texts)
    assert unpacked_texts(packed_texts(texts)).tolist() == texts
