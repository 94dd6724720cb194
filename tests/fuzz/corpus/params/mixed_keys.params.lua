return { interest_rate = 0.03, [1] = 2, [1.5] = 3, [true] = 4 }
