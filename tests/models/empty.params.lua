-- No parameters: for a model that fixes all of its own (fixed_params).
return {}
