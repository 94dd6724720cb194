-- The structural parameters of Mahler & Yum (2024) as estimated (pylcm's
-- START_PARAMS): what an estimation varies.  inputs.lua turns them into the
-- model's parameters.
return {
  -- disutility of work in good and bad health: knots at ages 27, 41, 51, 65
  work_disutility = {
    bad = { [27] = 2.41177758126754, [41] = 1.8133670880598, [51] = 1.39103558901915, [65] = 2.41466980231321 },
    good = { [27] = 2.63390750888379, [41] = 1.66602983591164, [51] = 1.27839561280412, [65] = 1.71439043350863 },
  },
  -- log of the work-disutility multiplier of the low-educated
  education_disutility_adjustment = 0.807247922589072,
  -- cost of effort by education and health: knots at ages 27, 49, 65, 87
  effort_cost = {
    low = {
      bad = { [27] = 0.628031290227532, [49] = 1.36593242946612, [65] = 1.64963812690034, [87] = 0.734873142494319 },
      good = { [27] = 0.146075197675677, [49] = 0.55992411008533, [65] = 1.04795036000287, [87] = 1.60294886005945 },
    },
    high = {
      bad = { [27] = 0.46921037985024, [49] = 0.996665589702672, [65] = 1.65388250352532, [87] = 1.08866246911941 },
      good = { [27] = 0.091312997289004, [49] = 0.302477689083851, [65] = 0.739843441095022, [87] = 1.36582077051777 },
    },
  },
  -- the wage profile by education, y1 exp(yt_s t + yt_sq t^2) (1 - wagep (1 - health)),
  -- and the innovation variance of the productivity shock
  income_process = {
    y1 = { low = 0.899399488241831, high = 1.1654726432446 },
    yt_s = { low = 0.0615804210614531, high = 0.0874283672769353 },
    yt_sq = { low = -0.00250769285750586, high = -0.00293713499239749 },
    wagep = { low = 0.17769766414897, high = 0.144836058314823 },
    sigx = 0.0289408524185787,
  },
  -- the adjustment-cost envelope a0 exp(a1 t)
  adjustment_cost = { 0.000120437772838191, 0.14468204213946 },
  -- the two discount factors are mean -/+ std
  discount_factor = { mean = 0.942749393405227, std = 0.0283688760224992 },
  effort_elasticity = 1.11497911620865,
  utility_constant = 13.1079320277342,
  health_consumption_penalty = 0.871503495423925,
  pension_replacement_rate = 0.358766004066242,
}
