import tensorflow as tf
tf.compat.v1.Session()
