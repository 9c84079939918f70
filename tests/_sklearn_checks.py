"""The check_estimator exceptions that every pauc ranker shares, documented once."""

# The package's one positive-class rule (scikit-learn's, pauc._validation.check_pos_label):
# without pos_label the labels must be {0, 1}, {-1, 1} or booleans.  These checks fit on
# {1, 2} or on strings without naming the positive class, and get the rule's clear
# ValueError; tests/test_labels.py checks the same fits with pos_label given.
LABEL_RULE = "labels other than {0,1}/{-1,1}/bool need pos_label (the package's one rule)"
LABEL_RULE_CHECKS = {
    "check_estimators_dtypes": LABEL_RULE,
    "check_classifier_data_not_an_array": LABEL_RULE,
    "check_classifiers_classes": LABEL_RULE,
    "check_fit2d_1feature": LABEL_RULE,
    # rankers that take sample_weight
    "check_sample_weights_not_an_array": LABEL_RULE,
    "check_sample_weights_shape": LABEL_RULE,
    "check_sample_weights_not_overwritten": LABEL_RULE,
}


def expected_failed_checks(**more):
    """The shared exceptions, plus an estimator's own (name -> reason)."""
    return {**LABEL_RULE_CHECKS, **more}
