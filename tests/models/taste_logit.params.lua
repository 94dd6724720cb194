return { u_work = 1.0, u_rest = 0.25, group_bonus = 0.5, taste_shock_scale = 0.5 }
