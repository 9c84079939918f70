"""What every pauc estimator is to scikit-learn: a binary ranker that takes sparse input."""

from sklearn.utils import ClassifierTags


class BinaryRankerMixin:
    """scikit-learn tags shared by the pauc estimators.

    A bipartite ranker needs ``y`` with exactly two classes (the common checks
    then binarise their targets) and reads scipy.sparse input, converting it
    where a family needs dense columns.  Put it left of ``BaseEstimator``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.classifier_tags = ClassifierTags(multi_class=False)
        tags.input_tags.sparse = True
        return tags
