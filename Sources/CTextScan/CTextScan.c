// The classifier is inline in the header so that Swift can inline it into its loop.
#include "CTextScan.h"
