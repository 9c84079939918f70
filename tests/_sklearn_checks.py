"""The check_estimator exceptions that every pauc ranker shares, documented once."""

# The package's one positive-class rule (scikit-learn's, pauc._validation.check_pos_label):
# without pos_label the labels must be {0, 1}, {-1, 1} or booleans.  These checks fit on
# {1, 2} or on strings without naming the positive class, and get the rule's clear
# ValueError; tests/svm/test_estimators.py::test_the_label_rule_checks_pass_with_pos_label
# runs the same fits, every public ranker, with pos_label given.
#
# check_sample_weights_pandas_series (scikit-learn >= 1.6, run only where pandas is
# installed) is one of them: it fits labels {1, 2} without pos_label.  Decided: the rule
# stays.  Which of 1 and 2 is the positive class is the one question a ranker must not
# guess (the scores' direction, the window's side of the ROC curve and every pAUC depend
# on it), and scikit-learn's own roc_auc_score / roc_curve refuse {1, 2} without
# pos_label for the same reason.  The pandas part of the check -- a pandas.Series as
# sample_weight -- is accepted by every ranker (the test above passes one).
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
    "check_sample_weights_pandas_series": LABEL_RULE,
}


# Rankers that threshold their score at a training operating point (pauc._threshold):
# scikit-learn's check wants predict == (decision_function > 0).
DECISION_IS_A_SCORE = (
    "decision_function is a ranking score; predict thresholds it at the training operating "
    "point threshold_ (operating_fpr), not at 0, so 'decision_function > 0 == predict' "
    "does not hold by design")


def expected_failed_checks(**more):
    """The shared exceptions, plus an estimator's own (name -> reason)."""
    return {**LABEL_RULE_CHECKS, **more}
