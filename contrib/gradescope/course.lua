-- The course file of a Gradescope autograder (docs/assignments.md): the
-- student uploads reduce.cl; it is graded with the reduction recipe's
-- assignment mode and this rubric. Every grading option may be set here.
return {
  name = "GPU programming: a reduction that beats step 4",
  timeout = 20,                        -- seconds a wait for the device may last
  assignments = {
    { name = "reduction", recipe = "reduction", kernel = "reduce.cl", options = "--quick",
      rubric = { build = 1, correct = 3,
        speed = { against = "reference", { at_least = 0.5, points = 1 }, { at_least = 0.9, points = 2 } },
        penalties = { out_of_bounds = 1, timeout = 1 } } },
  },
}
