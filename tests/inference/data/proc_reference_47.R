# Reference values of R's pROC for issue 47 part 3 (tests/inference/test_inference_proc_47.py):
# Venkatraman's test (paired and unpaired), power.roc.test and multiclass.roc.
#
#     Rscript tests/data/proc_reference_47.R   # writes tests/data/proc_reference_47.json
#
# Produced with pROC 1.18.0 (Debian bookworm's r-cran-proc 1.18.0-1+b1) on R 4.2.2.
# Every case stores its inputs (labels and scores, or the numbers passed), so the tests
# need no R. Inputs are random draws with the seeds below, or the numeric examples of
# pROC's own help pages (?power.roc.test, ?multiclass.roc); the aSAH data set is not
# copied: its examples are stored as the summaries (AUCs, variances, binormal fits,
# correlations, counts) that give pROC's results. jsonlite writes an empty argument list as [] and R's NULL as null.
# pROC conventions: levels = c(0, 1) (controls = 0, cases = 1), direction = "<" (cases
# score higher), pauc's "higher = positive".
# Venkatraman's p-values are permutation p-values: random, so they are stored with their
# number of permutations (boot.n) and compared within Monte Carlo error; the paired
# statistic E is deterministic (ties.method = "first") and compared exactly, the unpaired
# one is pROC's own (compared loosely; the black-box probes at the end of this script
# show what it is on equal designs and how it departs from an area on others). The power of a partial AUC from
# data uses pROC's bootstrap variances (random, compared within Monte Carlo error).
# Regenerating with this script reproduces the stored values exactly (same seed, same
# order of draws).

suppressPackageStartupMessages({
  library(pROC)
  library(jsonlite)
})

set.seed(20261128)

roc01 <- function(y, s) roc(y, s, levels = c(0, 1), direction = "<", quiet = TRUE)

binormal_pair <- function(m, n, shift_a, shift_b, rho, digits = NA) {
  y <- c(rep(1L, m), rep(0L, n))
  z1 <- rnorm(m + n)
  z2 <- rho * z1 + sqrt(1 - rho^2) * rnorm(m + n)
  a <- z1 + shift_a * y
  b <- z2 + shift_b * y
  if (!is.na(digits)) {
    a <- round(a, digits)
    b <- round(b, digits)
  }
  perm <- sample.int(m + n)
  list(y = y[perm], a = a[perm], b = b[perm])
}

# ---------------------------------------------------------------- Venkatraman, paired
venkatraman_paired <- list()
specs <- list(
  list(name = "continuous", m = 30, n = 40, sa = 1.0, sb = 0.4, rho = 0.5, digits = NA, boot = 4000),
  list(name = "same_curve", m = 35, n = 45, sa = 0.8, sb = 0.8, rho = 0.6, digits = NA, boot = 4000),
  list(name = "ties", m = 25, n = 30, sa = 1.0, sb = 0.6, rho = 0.4, digits = 0, boot = 4000),
  list(name = "unbalanced", m = 10, n = 90, sa = 1.2, sb = 0.9, rho = 0.7, digits = 2, boot = 2000),
  list(name = "larger", m = 120, n = 160, sa = 0.7, sb = 0.5, rho = 0.8, digits = NA, boot = 1000)
)
for (s in specs) {
  d <- binormal_pair(s$m, s$n, s$sa, s$sb, s$rho, s$digits)
  test <- roc.test(roc01(d$y, d$a), roc01(d$y, d$b), method = "venkatraman", paired = TRUE,
                   boot.n = s$boot, progress = "none")
  venkatraman_paired[[length(venkatraman_paired) + 1]] <- list(
    name = s$name, y = d$y, a = d$a, b = d$b, statistic = unname(test$statistic),
    pvalue = test$p.value, boot_n = s$boot)
}
# statistic only (E is deterministic): many small random cases, ties included
venkatraman_paired_stat <- list()
for (i in 1:30) {
  m <- sample(3:25, 1)
  n <- sample(3:25, 1)
  d <- binormal_pair(m, n, runif(1, -0.5, 2), runif(1, -0.5, 2), runif(1, -0.5, 0.9),
                     if (i %% 3 == 0) 0 else NA)
  test <- roc.test(roc01(d$y, d$a), roc01(d$y, d$b), method = "venkatraman", paired = TRUE,
                   boot.n = 1, progress = "none")
  venkatraman_paired_stat[[i]] <- list(y = d$y, a = d$a, b = d$b,
                                       statistic = unname(test$statistic))
}

# -------------------------------------------------------------- Venkatraman, unpaired
binormal_one <- function(m, n, shift, digits = NA) {
  y <- c(rep(1L, m), rep(0L, n))
  s <- rnorm(m + n) + shift * y
  if (!is.na(digits)) s <- round(s, digits)
  perm <- sample.int(m + n)
  list(y = y[perm], s = s[perm])
}
venkatraman_unpaired <- list()
specs <- list(
  list(name = "different", m1 = 30, n1 = 40, m2 = 25, n2 = 50, s1 = 1.2, s2 = 0.3, digits = NA, boot = 4000),
  list(name = "same_curve", m1 = 40, n1 = 40, m2 = 30, n2 = 60, s1 = 0.8, s2 = 0.8, digits = NA, boot = 4000),
  list(name = "ties", m1 = 20, n1 = 30, m2 = 35, n2 = 25, s1 = 1.0, s2 = 0.5, digits = 0, boot = 2000)
)
for (s in specs) {
  d1 <- binormal_one(s$m1, s$n1, s$s1, s$digits)
  d2 <- binormal_one(s$m2, s$n2, s$s2, s$digits)
  test <- roc.test(roc01(d1$y, d1$s), roc01(d2$y, d2$s), method = "venkatraman",
                   paired = FALSE, boot.n = s$boot, progress = "none")
  venkatraman_unpaired[[length(venkatraman_unpaired) + 1]] <- list(
    name = s$name, y_a = d1$y, a = d1$s, y_b = d2$y, b = d2$s,
    statistic = unname(test$statistic), pvalue = test$p.value, boot_n = s$boot)
}
venkatraman_unpaired_stat <- list()
for (i in 1:30) {
  d1 <- binormal_one(sample(3:25, 1), sample(3:25, 1), runif(1, -0.5, 2),
                     if (i %% 3 == 0) 0 else NA)
  d2 <- binormal_one(sample(3:25, 1), sample(3:25, 1), runif(1, -0.5, 2),
                     if (i %% 3 == 0) 0 else NA)
  test <- roc.test(roc01(d1$y, d1$s), roc01(d2$y, d2$s), method = "venkatraman",
                   paired = FALSE, boot.n = 1, progress = "none")
  venkatraman_unpaired_stat[[i]] <- list(y_a = d1$y, a = d1$s, y_b = d2$y, b = d2$s,
                                         statistic = unname(test$statistic))
}

# ------------------------------------------------------------------------------ power
htest <- function(p) {
  keep <- intersect(names(p), c("ncases", "ncontrols", "auc", "sig.level", "power"))
  out <- lapply(keep, function(k) as.numeric(p[[k]]))
  names(out) <- keep
  out
}
nul <- function(x) if (is.null(x)) NA else x
one_curve <- function(args) {
  res <- do.call(power.roc.test, args)
  c(list(args = lapply(args, nul)), list(result = htest(res)))
}
power_one <- list()
# the numeric examples of ?power.roc.test (one ROC curve)
examples <- list(
  list(ncases = 41, ncontrols = 72, auc = 0.73, sig.level = 0.05),
  list(auc = 0.73, sig.level = 0.05, power = 0.95, kappa = 1.7),
  list(ncases = 41, ncontrols = 72, auc = 0.73, power = 0.95, sig.level = NULL),
  list(ncases = 41, ncontrols = 72, sig.level = 0.05, power = 0.95)
)
for (args in examples) power_one[[length(power_one) + 1]] <- c(one_curve(args), origin = "help")
for (i in 1:24) {
  auc <- round(runif(1, 0.55, 0.95), 3)
  nca <- sample(15:200, 1)
  nco <- sample(15:300, 1)
  alt <- if (i %% 2 == 0) "two.sided" else "one.sided"
  which <- i %% 4
  args <- switch(which + 1,
    list(ncases = nca, ncontrols = nco, auc = auc, sig.level = 0.05, alternative = alt),
    list(auc = auc, sig.level = round(runif(1, 0.01, 0.1), 3), power = round(runif(1, 0.6, 0.95), 3),
         kappa = round(runif(1, 0.3, 3), 2), alternative = alt),
    list(ncases = nca, ncontrols = nco, auc = auc, power = round(runif(1, 0.6, 0.95), 3),
         sig.level = NULL, alternative = alt),
    list(ncases = nca, ncontrols = nco, sig.level = round(runif(1, 0.01, 0.1), 3),
         power = round(runif(1, 0.6, 0.95), 3), alternative = alt))
  power_one[[length(power_one) + 1]] <- c(one_curve(args), origin = "random")
}

# two ROC curves from binormal parameters (Obuchowski & McClish 1997)
power_params <- list()
ob <- list(A1 = 2.6, B1 = 1, A2 = 1.9, B2 = 1, rn = 0.6, ra = 0.6, FPR11 = 0, FPR12 = 0.2,
           FPR21 = 0, FPR22 = 0.2, delta = 0.037)
params_call <- function(pars, args) {
  res <- suppressWarnings(do.call(power.roc.test, c(list(pars), args)))
  list(params = pars, args = lapply(args, nul), result = htest(res))
}
for (args in list(list(power = 0.8, sig.level = 0.05),
                  list(power = 0.8, sig.level = NULL, ncases = 107),
                  list(power = NULL, sig.level = 0.05, ncases = 107))) {
  power_params[[length(power_params) + 1]] <- c(params_call(ob, args), origin = "help")
}
for (i in 1:16) {
  pars <- list(A1 = round(runif(1, 0.5, 2.5), 2), B1 = round(runif(1, 0.5, 1.5), 2),
               A2 = round(runif(1, 0.5, 2.5), 2), B2 = round(runif(1, 0.5, 1.5), 2),
               rn = round(runif(1, 0, 0.8), 2), ra = round(runif(1, 0, 0.8), 2),
               delta = round(runif(1, 0.02, 0.15), 3))
  if (i %% 2 == 0) {
    lo <- round(runif(1, 0, 0.1), 2)
    hi <- round(runif(1, 0.2, 0.5), 2)
    pars <- c(pars, list(FPR11 = lo, FPR12 = hi, FPR21 = lo, FPR22 = hi))
  }
  kappa <- round(runif(1, 0.5, 2.5), 2)
  alt <- if (i %% 3 == 0) "one.sided" else "two.sided"
  args <- switch(i %% 3 + 1,
    list(power = 0.8, sig.level = 0.05, kappa = kappa, alternative = alt),
    list(power = 0.85, sig.level = NULL, ncases = sample(50:300, 1), kappa = kappa,
         alternative = alt),
    list(power = NULL, sig.level = 0.05, ncases = sample(50:300, 1), kappa = kappa,
         alternative = alt))
  power_params[[length(power_params) + 1]] <- c(params_call(pars, args), origin = "random")
}

# two paired ROC curves from data, DeLong's covariance
power_paired <- list()
for (i in 1:6) {
  d <- binormal_pair(sample(30:120, 1), sample(30:150, 1), runif(1, 0.6, 1.4),
                     runif(1, 0.2, 1.0), runif(1, 0.2, 0.8), if (i %% 3 == 0) 1 else NA)
  r1 <- roc01(d$y, d$a)
  r2 <- roc01(d$y, d$b)
  calls <- list(list(), list(power = 0.9), list(power = 0.9, sig.level = NULL),
                list(power = 0.8, kappa = 2))
  res <- lapply(calls, function(args) {
    list(args = lapply(args, nul), result = htest(do.call(power.roc.test, c(list(r1, r2), args))))
  })
  power_paired[[i]] <- list(y = d$y, a = d$a, b = d$b, calls = res)
}

# ------------------------------------------------------------------------- multiclass
multiclass_uni <- list()
for (i in 1:12) {
  k <- sample(3:5, 1)
  sizes <- sample(5:40, k, replace = TRUE)
  y <- rep(seq_len(k) - 1L, sizes)
  # class means in a random order, some close, so that "auto" picks both directions
  mu <- rnorm(k, sd = 1)
  s <- rnorm(length(y)) + mu[y + 1]
  if (i %% 3 == 0) s <- round(s, 1)
  perm <- sample.int(length(y))
  y <- y[perm]
  s <- s[perm]
  mc <- suppressWarnings(multiclass.roc(y, s, quiet = TRUE))
  pair_aucs <- sapply(mc$rocs, function(r) as.numeric(auc(r)))
  multiclass_uni[[i]] <- list(y = y, score = s, auc = as.numeric(mc$auc),
                              pair_aucs = pair_aucs)
}
multiclass_multi <- list()
# the artificial example of ?multiclass.roc
n <- c(100, 80, 150)
responses <- factor(c(rep("X1", n[1]), rep("X2", n[2]), rep("X3", n[3])))
preds <- lapply(n, function(x) runif(x, 0.4, 0.6))
predictor <- as.matrix(data.frame(
  "X1" = c(preds[[1]], runif(n[2] + n[3], 0, 0.7)),
  "X2" = c(runif(n[1], 0.1, 0.4), preds[[2]], runif(n[3], 0.2, 0.8)),
  "X3" = c(runif(n[1] + n[2], 0.3, 0.7), preds[[3]])))
mc <- multiclass.roc(responses, predictor, quiet = TRUE)
multiclass_multi[[1]] <- list(origin = "help", y = as.integer(responses) - 1L,
                              score = unname(predictor), auc = as.numeric(mc$auc))
for (i in 1:10) {
  k <- sample(3:5, 1)
  sizes <- sample(5:40, k, replace = TRUE)
  y <- rep(seq_len(k) - 1L, sizes)
  logits <- matrix(rnorm(length(y) * k), ncol = k)
  logits[cbind(seq_along(y), y + 1)] <- logits[cbind(seq_along(y), y + 1)] + runif(1, 0, 1.5)
  prob <- exp(logits) / rowSums(exp(logits))
  if (i %% 3 == 0) prob <- round(prob, 1)
  colnames(prob) <- as.character(seq_len(k) - 1L)
  mc <- multiclass.roc(y, prob, quiet = TRUE)
  multiclass_multi[[i + 1]] <- list(origin = "random", y = y, score = unname(prob),
                                    auc = as.numeric(mc$auc))
}

# two paired ROC curves from data, partial AUC: pROC's bootstrap variance and covariance
# (random: compared within Monte Carlo error); drawn last so that the values above do
# not depend on this section
power_paired_partial <- list()
for (i in 1:3) {
  d <- binormal_pair(sample(80:150, 1), sample(80:150, 1), 1.2, 0.7, 0.6, NA)
  r1 <- roc01(d$y, d$a)
  r2 <- roc01(d$y, d$b)
  res <- list()
  for (correct in c(FALSE)) {  # pROC refuses the power of corrected partial AUCs
    for (args in list(list(), list(power = 0.9))) {
      full <- c(list(r1, r2, reuse.auc = FALSE, partial.auc = c(1, 0.8),
                     partial.auc.focus = "specificity", partial.auc.correct = correct,
                     method = "bootstrap", boot.n = 4000, progress = "none"), args)
      res[[length(res) + 1]] <- list(args = lapply(args, nul), correct = correct,
                                     result = htest(do.call(power.roc.test, full)))
    }
  }
  power_paired_partial[[i]] <- list(y = d$y, a = d$a, b = d$b, fpr_range = c(0, 0.2),
                                    calls = res)
}

# ------------------------------------------- power, method = "obuchowski" and windows
# (added later, with a seed of its own so that the values above do not change)
set.seed(47047)
# the binormal parameters pROC fits (coefficients of its binormal smooth's linear
# model), its Obuchowski variances and covariance, and power.roc.test's results
obuchowski_summary <- function(r1, r2, y, a, b) {
  c1 <- coef(smooth(r1)$model)
  c2 <- coef(smooth(r2)$model)
  list(coef_a = unname(c1), coef_b = unname(c2),
       var_a = var(r1, method = "obuchowski"), var_b = var(r2, method = "obuchowski"),
       cov = cov(r1, r2, method = "obuchowski"),
       auc_a = as.numeric(r1$auc), auc_b = as.numeric(r2$auc),
       rn = cor(as.numeric(a)[y == 0], as.numeric(b)[y == 0]),
       ra = cor(as.numeric(a)[y == 1], as.numeric(b)[y == 1]))
}
obuchowski_calls <- list(list(), list(power = 0.9), list(power = 0.9, sig.level = NULL),
                         list(power = 0.8, kappa = 2), list(kappa = 2))
power_obuchowski <- list()
for (i in 1:8) {
  d <- binormal_pair(sample(20:120, 1), sample(20:150, 1), runif(1, 0.6, 1.4),
                     runif(1, 0.2, 1.0), runif(1, 0.2, 0.8), if (i %% 3 == 0) 1 else NA)
  if (i %% 4 == 1) d$a <- exp(d$a)       # not binormal on its own scale
  r1 <- roc01(d$y, d$a)
  r2 <- roc01(d$y, d$b)
  res <- lapply(obuchowski_calls, function(args) {
    list(args = lapply(args, nul),
         result = htest(do.call(power.roc.test, c(list(r1, r2, method = "obuchowski"), args))))
  })
  power_obuchowski[[i]] <- c(list(y = d$y, a = d$a, b = d$b, calls = res),
                             obuchowski_summary(r1, r2, d$y, d$a, d$b))
}
# pROC's Obuchowski variances of a partial AUC from data (specificity window): kept to
# document which area they are of; pauc refuses this case
obuchowski_partial <- list()
for (i in 1:4) {
  d <- binormal_pair(sample(40:120, 1), sample(40:150, 1), 1.2, 0.7, 0.5, NA)
  sp <- list(c(1, 0.8), c(0.9, 0.7), c(1, 0.9), c(0.95, 0.6))[[i]]
  r1 <- roc(d$y, d$a, levels = c(0, 1), direction = "<", quiet = TRUE, partial.auc = sp,
            partial.auc.focus = "specificity")
  r2 <- roc(d$y, d$b, levels = c(0, 1), direction = "<", quiet = TRUE, partial.auc = sp,
            partial.auc.focus = "specificity")
  obuchowski_partial[[i]] <- c(list(y = d$y, a = d$a, b = d$b, specificity = sp),
                               obuchowski_summary(r1, r2, d$y, d$a, d$b))
}
# binormal parameters with one FPR window per curve (FPR11-FPR12, FPR21-FPR22), each
# given low then high
power_params_windows <- list()
for (i in 1:12) {
  pars <- list(A1 = round(runif(1, 0.5, 2.5), 2), B1 = round(runif(1, 0.5, 1.5), 2),
               A2 = round(runif(1, 0.5, 2.5), 2), B2 = round(runif(1, 0.5, 1.5), 2),
               rn = round(runif(1, 0, 0.8), 2), ra = round(runif(1, 0, 0.8), 2),
               delta = round(runif(1, 0.02, 0.15), 3))
  lo <- round(runif(2, 0, 0.2), 2)
  hi <- round(lo + runif(2, 0.05, 0.5), 2)
  pars <- c(pars, list(FPR11 = lo[1], FPR12 = hi[1], FPR21 = lo[2], FPR22 = hi[2]))
  kappa <- round(runif(1, 0.5, 2.5), 2)
  alt <- if (i %% 3 == 0) "one.sided" else "two.sided"
  args <- switch(i %% 3 + 1,
    list(power = 0.8, sig.level = 0.05, kappa = kappa, alternative = alt),
    list(power = 0.85, sig.level = NULL, ncases = sample(50:300, 1), kappa = kappa,
         alternative = alt),
    list(power = NULL, sig.level = 0.05, ncases = sample(50:300, 1), kappa = kappa,
         alternative = alt))
  power_params_windows[[i]] <- params_call(pars, args)
}

# --------------------------------------- the help pages' examples on pROC's aSAH data
# The data set is not copied: each example is stored in a numeric form that gives pROC's
# result without the data, with pROC's result. ?power.roc.test, "Two ROC curves":
# roc1 = ndka, roc2 = wfns (outcome Good = control, Poor = case; 72 and 41).
data(aSAH)
roc1 <- roc(aSAH$outcome, aSAH$ndka, quiet = TRUE)
roc2 <- roc(aSAH$outcome, aSAH$wfns, quiet = TRUE)
roc3 <- roc(aSAH$outcome, aSAH$ndka, partial.auc = c(1, 0.9), quiet = TRUE)
roc4 <- roc(aSAH$outcome, aSAH$wfns, partial.auc = c(1, 0.9), quiet = TRUE)
stopifnot(roc1$direction == "<", roc2$direction == "<")
yy <- as.integer(aSAH$outcome == "Poor")
help_calls <- list(list(power = 0.9), list(), list(power = 0.9, sig.level = NULL))
help_power <- function(r1, r2, method) {
  lapply(help_calls, function(args) {
    list(args = lapply(args, nul),
         result = htest(do.call(power.roc.test, c(list(r1, r2, method = method), args))))
  })
}
power_help_aSAH <- list(
  ncases = length(roc1$cases), ncontrols = length(roc1$controls),
  # DeLong (the default): the AUCs and pROC's DeLong variances and covariance
  delong = list(auc_a = as.numeric(roc1$auc), auc_b = as.numeric(roc2$auc),
                var_a = var(roc1), var_b = var(roc2), cov = cov(roc1, roc2),
                calls = help_power(roc1, roc2, "delong")),
  # Obuchowski: the fitted binormal parameters, the correlations and the AUCs
  obuchowski = c(obuchowski_summary(roc1, roc2, yy, aSAH$ndka, aSAH$wfns),
                 list(calls = help_power(roc1, roc2, "obuchowski"))),
  # Obuchowski on the partial AUC over specificity in [0.9, 1] (refused by pauc)
  obuchowski_partial = c(obuchowski_summary(roc3, roc4, yy, aSAH$ndka, aSAH$wfns),
                         list(specificity = c(1, 0.9),
                              calls = help_power(roc3, roc4, "obuchowski"))))

# ------------------------------- Venkatraman, unpaired: what pROC's statistic is (probes)
# Black-box probes of pROC's unpaired statistic (pauc does not reproduce it in general;
# see tests/inference/test_inference_proc_47.py). Samples of equal design (the same numbers of
# cases and of controls), random scores, ties in every fourth case:
set.seed(4747)
venkatraman_unpaired_equal <- list()
for (i in 1:30) {
  m <- sample(2:30, 1)
  n <- sample(2:30, 1)
  d1 <- binormal_one(m, n, runif(1, 0, 2), if (i %% 4 == 0) 0 else NA)
  d2 <- binormal_one(m, n, runif(1, -0.5, 2), if (i %% 4 == 0) 0 else NA)
  test <- roc.test(roc01(d1$y, d1$s), roc01(d2$y, d2$s), method = "venkatraman",
                   paired = FALSE, boot.n = 1, progress = "none")
  venkatraman_unpaired_equal[[i]] <- list(y_a = d1$y, a = d1$s, y_b = d2$y, b = d2$s,
                                          statistic = unname(test$statistic))
}
# hand-made designs (scores 1..n, labels in the given order): the statistic or pROC's
# error message
probe <- function(y1, y2) {
  r1 <- roc01(y1, seq_along(y1))
  r2 <- roc01(y2, seq_along(y2))
  stat <- tryCatch(unname(suppressWarnings(roc.test(r1, r2, method = "venkatraman",
                                                    paired = FALSE, boot.n = 1,
                                                    progress = "none"))$statistic),
                   error = function(e) conditionMessage(e))
  list(y_a = y1, y_b = y2, statistic = stat)
}
perfect <- function(m, n) c(rep(0L, n), rep(1L, m))
reversed <- function(m, n) c(rep(1L, m), rep(0L, n))
venkatraman_unpaired_probes <- c(
  # the same ROC curve (perfect) at different sizes
  lapply(c(2, 4, 8, 12), function(j) c(probe(perfect(1, 1), perfect(j, j)), kind = "same")),
  # a perfect against a reversed ranker
  lapply(c(1, 2, 3, 4, 10, 50), function(j) c(probe(perfect(1, 1), reversed(j, j)),
                                             kind = "perfect_reversed")),
  lapply(c(1, 2, 3, 4, 10), function(j) c(probe(reversed(1, 1), perfect(j, j)),
                                         kind = "reversed_perfect")),
  # the order of the two curves
  list(c(probe(c(1L, 0L), c(0L, 1L, 0L)), kind = "order"),
       c(probe(c(0L, 1L, 0L), c(1L, 0L)), kind = "order")))

# ------------------------------------------- multiclass.roc: direction of a score matrix
# ?multiclass.roc's artificial example again (its own seed) with direction = ">" (the
# default for a matrix) and "<", and random matrices whose columns score their class
# lower or higher
set.seed(4749)
multiclass_directions <- list()
n <- c(100, 80, 150)
responses <- factor(c(rep("X1", n[1]), rep("X2", n[2]), rep("X3", n[3])))
preds <- lapply(n, function(x) runif(x, 0.4, 0.6))
predictor <- as.matrix(data.frame(
  "X1" = c(preds[[1]], runif(n[2] + n[3], 0, 0.7)),
  "X2" = c(runif(n[1], 0.1, 0.4), preds[[2]], runif(n[3], 0.2, 0.8)),
  "X3" = c(runif(n[1] + n[2], 0.3, 0.7), preds[[3]])))
direction_aucs <- function(y, score) {
  list(default = as.numeric(multiclass.roc(y, score, quiet = TRUE)$auc),
       greater = as.numeric(multiclass.roc(y, score, direction = ">", quiet = TRUE)$auc),
       less = as.numeric(multiclass.roc(y, score, direction = "<", quiet = TRUE)$auc),
       auto = tryCatch(multiclass.roc(y, score, direction = "auto", quiet = TRUE)$auc,
                       error = function(e) conditionMessage(e)))
}
multiclass_directions[[1]] <- c(list(origin = "help", y = as.integer(responses) - 1L,
                                     score = unname(predictor)),
                                direction_aucs(responses, predictor))
for (i in 1:5) {
  k <- sample(3:4, 1)
  y <- rep(seq_len(k) - 1L, sample(10:40, k, replace = TRUE))
  score <- matrix(runif(length(y) * k), ncol = k)
  shift <- runif(k, -0.5, 0.5)
  score[cbind(seq_along(y), y + 1)] <- score[cbind(seq_along(y), y + 1)] + shift[y + 1]
  if (i %% 2 == 0) score <- round(score, 1)
  colnames(score) <- as.character(seq_len(k) - 1L)
  multiclass_directions[[i + 1]] <- c(list(origin = "random", y = y, score = unname(score)),
                                      direction_aucs(y, score))
}

result <- list(pROC_version = as.character(packageVersion("pROC")),
               R_version = R.version.string,
               venkatraman_paired = venkatraman_paired,
               venkatraman_paired_stat = venkatraman_paired_stat,
               venkatraman_unpaired = venkatraman_unpaired,
               venkatraman_unpaired_stat = venkatraman_unpaired_stat,
               power_one = power_one, power_params = power_params,
               power_paired = power_paired,
               power_paired_partial = power_paired_partial,
               multiclass_univariate = multiclass_uni,
               multiclass_multivariate = multiclass_multi,
               power_obuchowski = power_obuchowski,
               obuchowski_partial = obuchowski_partial,
               power_params_windows = power_params_windows,
               power_help_aSAH = power_help_aSAH,
               venkatraman_unpaired_equal = venkatraman_unpaired_equal,
               venkatraman_unpaired_probes = venkatraman_unpaired_probes,
               multiclass_directions = multiclass_directions)
here <- dirname(normalizePath(sub("--file=", "", grep("--file=", commandArgs(FALSE),
                                                        value = TRUE))))
writeLines(toJSON(result, digits = NA, auto_unbox = TRUE, pretty = TRUE, na = "null"),
           file.path(here, "proc_reference_47.json"))
