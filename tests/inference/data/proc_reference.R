# Reference values of R's pROC for tests/inference/test_inference_proc.py.
#
#     Rscript tests/data/proc_reference.R    # writes tests/data/proc_reference.json
#
# Every case stores its data (labels and scores), so the tests need no R.
# pROC conventions used here: levels = c(0, 1) (controls = 0, cases = 1) and
# direction = "<" (cases score higher), which is pauc's "higher = positive".
# Partial AUC: pROC's partial.auc = c(1, 1 - beta) with partial.auc.focus =
# "specificity" is the ROC area over FPR in [0, beta]; uncorrected it is pauc's
# normalize = "none", with partial.auc.correct = TRUE it is McClish's
# standardisation, pauc's normalize = "mcclish" (alpha = 0).

suppressPackageStartupMessages({
  library(pROC)
  library(jsonlite)
})

set.seed(20261125)

make_case <- function(name, y, a, b) list(name = name, y = y, a = a, b = b)

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

cases <- list()
specs <- list(
  list(name = "continuous_small", m = 30, n = 40, sa = 1.0, sb = 0.7, rho = 0.6, digits = NA),
  list(name = "ties_rounded", m = 25, n = 35, sa = 0.8, sb = 0.8, rho = 0.5, digits = 0),
  list(name = "ties_heavy", m = 60, n = 50, sa = 1.2, sb = 0.5, rho = 0.3, digits = 0),
  list(name = "unbalanced", m = 12, n = 300, sa = 1.5, sb = 1.2, rho = 0.8, digits = 1),
  list(name = "medium", m = 400, n = 600, sa = 0.9, sb = 1.0, rho = 0.7, digits = 2)
)
for (s in specs) {
  d <- binormal_pair(s$m, s$n, s$sa, s$sb, s$rho, s$digits)
  cases[[length(cases) + 1]] <- make_case(s$name, d$y, d$a, d$b)
}

out <- list()
for (case in cases) {
  ra <- roc(case$y, case$a, levels = c(0, 1), direction = "<", quiet = TRUE)
  rb <- roc(case$y, case$b, levels = c(0, 1), direction = "<", quiet = TRUE)
  ci95 <- ci.auc(ra, conf.level = 0.95, method = "delong")
  ci90 <- ci.auc(ra, conf.level = 0.90, method = "delong")
  test <- roc.test(ra, rb, method = "delong", paired = TRUE)
  paucs <- list()
  for (window in list(c(0, 0.1), c(0, 0.3), c(0.05, 0.2), c(0.1, 0.5))) {
    alpha <- window[1]
    beta <- window[2]
    raw <- auc(ra, partial.auc = c(1 - alpha, 1 - beta), partial.auc.focus = "specificity",
               partial.auc.correct = FALSE)
    corrected <- auc(ra, partial.auc = c(1 - alpha, 1 - beta),
                     partial.auc.focus = "specificity", partial.auc.correct = TRUE)
    paucs[[length(paucs) + 1]] <- list(alpha = alpha, beta = beta, none = as.numeric(raw),
                                       mcclish = as.numeric(corrected))
  }
  # The stratified bootstrap's standard error of the corrected pAUC over FPR [0, 0.3],
  # pROC's auc() recomputed on 2,000 resamples of the rows (random: compared loosely,
  # for the size of the interval, not its digits).
  pos <- case$a[case$y == 1]
  neg <- case$a[case$y == 0]
  resampled <- replicate(2000, {
    p <- sample(pos, replace = TRUE)
    q <- sample(neg, replace = TRUE)
    r <- roc(c(rep(1L, length(p)), rep(0L, length(q))), c(p, q), levels = c(0, 1),
             direction = "<", quiet = TRUE)
    as.numeric(auc(r, partial.auc = c(1, 0.7), partial.auc.focus = "specificity",
                   partial.auc.correct = TRUE))
  })
  # pROC's own var(method = "bootstrap") for the same pAUC, kept for the record: in
  # pROC 1.18.0 it differs from the recomputation above (see the test's docstring)
  boot_var <- var(ra, method = "bootstrap", boot.n = 2000, boot.stratified = TRUE,
                  partial.auc = c(1, 0.7), partial.auc.focus = "specificity",
                  partial.auc.correct = TRUE, progress = "none")
  out[[length(out) + 1]] <- list(
    name = case$name, y = case$y, a = case$a, b = case$b,
    auc_a = as.numeric(auc(ra)), auc_b = as.numeric(auc(rb)),
    var_a = var(ra, method = "delong"), var_b = var(rb, method = "delong"),
    cov_ab = cov(ra, rb, method = "delong"),
    ci95 = as.numeric(ci95), ci90 = as.numeric(ci90),
    test_statistic = unname(test$statistic), test_pvalue = test$p.value,
    test_estimate = unname(test$estimate), test_conf_int = as.numeric(test$conf.int),
    partial = paucs,
    # pROC's auc() returns NA on some resamples of heavily tied integer scores: counted
    boot_se_mcclish_0.3 = sd(resampled, na.rm = TRUE),
    boot_na_mcclish_0.3 = sum(is.na(resampled)),
    proc_var_bootstrap_sd_mcclish_0.3 = sqrt(boot_var)
  )
}

result <- list(pROC_version = as.character(packageVersion("pROC")),
               R_version = R.version.string, cases = out)
here <- dirname(normalizePath(sub("--file=", "", grep("--file=", commandArgs(FALSE),
                                                        value = TRUE))))
writeLines(toJSON(result, digits = NA, auto_unbox = TRUE, pretty = TRUE),
           file.path(here, "proc_reference.json"))
