return { discount_factor = 1, unit_size = 49 }
