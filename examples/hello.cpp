#include <iostream>

int main()
{
	std::cout << "hello from sbx" << std::endl;
	return 0;
}
