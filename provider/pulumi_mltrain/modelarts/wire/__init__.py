"""Huawei IAM and ModelArts' wire: paths and constants, the client, the answer models, token and AK/SK auth."""
