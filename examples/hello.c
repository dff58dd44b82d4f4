#include <stdio.h>

int main(void)
{
	puts("hello from sbx");
	return 0;
}
