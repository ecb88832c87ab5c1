"""lib.stages.kmeans: the map's k-means in exact arithmetic, against planted regions and scikit-learn."""

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from lib.errors import ParameterError
from lib.stages.kmeans import kmeans


def blobs(sizes=(40, 25, 10), seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [5.0, 5.0], [-5.0, 5.0]])
    points = np.vstack([rng.normal(centre, 0.4, (size, 2)) for centre, size in zip(centres, sizes)])
    return points, np.repeat(np.arange(len(sizes)), sizes)


def test_planted_regions_are_found():
    points, truth = blobs()
    found = kmeans(points, 3)
    assert adjusted_rand_score(truth, found.labels) == 1.0
    assert found.centres.shape == (3, 2) and found.inertia > 0


def test_as_good_as_scikit_learn_on_scattered_points():
    points = np.random.default_rng(3).uniform(-1, 1, (2000, 2))
    ours = kmeans(points, 40).inertia
    theirs = KMeans(n_clusters=40, n_init=10, random_state=42).fit(points).inertia_
    assert ours <= 1.02 * theirs


def test_weights_pull_a_centre_towards_the_heavier_point():
    points = np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 0.0]])
    found = kmeans(points, 2, sample_weight=np.array([1.0, 3.0, 1.0]))
    assert found.centres[found.labels[0]][0] == pytest.approx(0.75)


def test_the_same_points_and_seed_give_the_same_regions_and_another_seed_may_not_break_them():
    points, _ = blobs(seed=5)
    first, again = kmeans(points, 6, random_state=1), kmeans(points, 6, random_state=1)
    assert np.array_equal(first.labels, again.labels) and np.array_equal(first.centres, again.centres)
    assert len(np.unique(kmeans(points, 6, random_state=2).labels)) == 6  # no region left empty


def test_as_many_regions_as_points_and_duplicates():
    assert sorted(kmeans(np.array([[0.0, 0.0], [1.0, 1.0]]), 2).labels) == [0, 1]
    same = kmeans(np.zeros((5, 2)), 1)
    assert list(same.labels) == [0] * 5 and same.inertia == 0


@pytest.mark.parametrize(
    "points, k, weights",
    [
        (np.zeros((3, 2)), 4, None),
        (np.zeros((3, 2)), 0, None),
        (np.zeros((3, 3)), 2, None),
        (np.zeros((3, 2)), 2, np.zeros(3)),
    ],
)
def test_bad_arguments_are_refused(points, k, weights):
    with pytest.raises(ParameterError):
        kmeans(points, k, sample_weight=weights)


@pytest.mark.parametrize("n_init", [0, -2])
def test_no_run_at_all_is_refused_not_answered_with_none(n_init):
    with pytest.raises(ParameterError, match="n_init"):
        kmeans(np.arange(8.0).reshape(4, 2), 2, n_init=n_init)
