"""An estimator of the shape scikit-learn 1.6 broke: it calls
BaseEstimator._validate_data, which moved to
sklearn.utils.validation.validate_data."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted


class Scaler(TransformerMixin, BaseEstimator):
    def __init__(self, factor=1.0):
        self.factor = factor

    def fit(self, X, y=None):
        X = self._validate_data(X, reset=True)
        self.scale_ = np.ones(X.shape[1]) * self.factor
        return self

    def transform(self, X):
        check_is_fitted(self)
        X = self._validate_data(X, reset=False)
        return X * self.scale_

    def _more_tags(self):
        return {"stateless": False}

    def get_feature_names_out(self, input_features=None):
        return self._check_feature_names(input_features, reset=False)
